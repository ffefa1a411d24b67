package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/internal/pitest"
	"pi/provider/faux"
)

// endlessServer is an OpenAI-compatible server whose reply never ends: text chunks until the
// client goes.
func endlessServer(t *testing.T) string {
	t.Helper()
	chunk := `data: {"id":"c1","object":"chat.completion.chunk","model":"m1","choices":[{"index":0,"delta":{"content":"` +
		strings.Repeat("and again ", 20) + `"}}]}` + "\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// countingWriter counts what pi writes and kills it once that passes a cap, so that a pi
// whose output outgrows its reply fails the test instead of filling the disk.
type countingWriter struct {
	n, limit int64
	kill     func()
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if c.n > c.limit && c.kill != nil {
		c.kill()
		c.kill = nil
	}
	return len(p), nil
}

// TestEndlessReplyStopsAtTheOutputBudgetInEveryMode: against a server that never ends its
// reply, pi stops at the reply's output budget (max_tokens 64: 1.25 MiB of stream) in print,
// JSON and RPC modes alike, and writes output linear in what it read, not a copy of the
// reply per chunk.
func TestEndlessReplyStopsAtTheOutputBudgetInEveryMode(t *testing.T) {
	bin := buildPi(t)
	url := endlessServer(t)
	const budget = 1<<20 + 64*4<<10
	cases := []struct {
		mode  string
		args  []string
		stdin string
	}{
		{"print", []string{"-p", "go on"}, ""},
		{"json", []string{"--mode", "json", "go on"}, ""},
		{"rpc", []string{"--mode", "rpc"}, `{"type":"prompt","id":"p1","message":"go on"}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, ".pihome")
			os.MkdirAll(home, 0o700)
			os.WriteFile(filepath.Join(home, "pi.toml"), []byte(fmt.Sprintf(
				"[providers.endless]\nkind = \"openai\"\nbase_url = %q\n\n[[providers.endless.models]]\nid = \"m1\"\nmax_tokens = 64\n",
				url+"/v1")), 0o600)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"--model", "endless/m1", "--no-session"}, tc.args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PI_HOME="+home)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, _ := cmd.StdoutPipe()
			stdin, _ := cmd.StdinPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(stdin, tc.stdin)
			if tc.mode != "rpc" {
				stdin.Close()
			}
			counted := &countingWriter{limit: 32 * budget, kill: func() { cmd.Process.Kill() }}
			sc := bufio.NewScanner(out)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			named := false // the error names the bound, in the events or on stderr
			for sc.Scan() {
				counted.Write(append(sc.Bytes(), '\n'))
				named = named || strings.Contains(sc.Text(), "output budget")
				if tc.mode == "rpc" && strings.HasPrefix(sc.Text(), `{"type":"agent_end"`) {
					stdin.Close()
				}
			}
			cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("pi went on for 60 s (%d bytes written)", counted.n)
			}
			if counted.n > 32*budget {
				t.Fatalf("pi wrote more than %d bytes for a reply cut at %d bytes of stream", counted.n, budget)
			}
			if !named && !strings.Contains(stderr.String(), "output budget") {
				t.Fatalf("nothing names the output budget; stderr %q", stderr.String())
			}
			t.Logf("%s: %d bytes of output", tc.mode, counted.n)
		})
	}
}

// TestRPCSetFullUpdates: by default an RPC client gets the partial reply in the first
// message_update of a reply and then now and then; set_full_updates gives it in every one.
func TestRPCSetFullUpdates(t *testing.T) {
	long := strings.Repeat("a reply long enough for several snapshots ", 200)
	a := newOpsApp(t, pitest.FauxModel(false), faux.Text(long), faux.Text(long))
	c, _, stop := startInProcess(t, context.Background(), a)
	defer stop()
	for _, full := range []bool{false, true} {
		if full {
			c.mustCall(map[string]any{"type": "set_full_updates", "enabled": true})
		}
		from := c.mark()
		c.mustCall(map[string]any{"type": "prompt", "message": "go"})
		c.awaitEvent(from, "agent_end")
		updates, snapshots := 0, 0
		for _, l := range c.history[from:] {
			if l["type"] != "message_update" {
				continue
			}
			updates++
			if _, ok := l["message"]; ok {
				snapshots++
			}
		}
		if full && snapshots != updates || !full && (snapshots == 0 || snapshots > 8) {
			t.Fatalf("full %v: %d snapshots in %d updates", full, snapshots, updates)
		}
	}
}
