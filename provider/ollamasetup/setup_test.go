package ollamasetup

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary is also the fake `ollama`: run as `ollama serve` with fakeServeEnv set, it
// serves /api/version and /api/tags (the models in fakeModelsEnv) on $OLLAMA_HOST until
// SIGTERM.
const (
	fakeServeEnv  = "OLLAMASETUP_FAKE_SERVE"
	fakeModelsEnv = "OLLAMASETUP_FAKE_MODELS"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeServeEnv) == "1" && len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(fakeServe())
	}
	os.Exit(m.Run())
}

func fakeServe() int {
	ln, err := net.Listen("tcp", os.Getenv("OLLAMA_HOST"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"version":"0.0.0-fake"}`) })
	mux.HandleFunc("/api/tags", func(w http.ResponseWriter, _ *http.Request) {
		var models []map[string]string
		for _, m := range strings.Fields(os.Getenv(fakeModelsEnv)) {
			models = append(models, map[string]string{"name": m, "model": m})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": models})
	})
	go http.Serve(ln, mux)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	return 0
}

// refusedHost is a loopback address where nothing listens.
func refusedHost(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// fakeOllamaOnPath puts an `ollama` script on a PATH of its own: the test binary as the fake
// server, or body as the script when it is not empty.
func fakeOllamaOnPath(t *testing.T, models, body string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if body == "" {
		body = fmt.Sprintf("export %s=1 %s=%q\nexec %q \"$@\"\n", fakeServeEnv, fakeModelsEnv, models, self)
	}
	if err := os.WriteFile(filepath.Join(dir, "ollama"), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return filepath.Join(dir, "ollama")
}

// TestDetectTellsTheCasesApart: a server that answers, an installed Ollama that is not
// serving, no Ollama at all, and a remote host that refuses (pi cannot start that one).
func TestDetectTellsTheCasesApart(t *testing.T) {
	serving := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"models":[{"name":"qwen3:8b","model":"qwen3:8b"}]}`)
	}))
	defer serving.Close()
	cases := []struct {
		name      string
		host      string
		installed bool
		want      State
		advice    string
	}{
		{"serving", serving.URL, false, Serving, "serves 1 model"},
		{"installed, not serving", refusedHost(t), true, NotServing, "can start `ollama serve`"},
		{"not installed", refusedHost(t), false, NotInstalled, "install Ollama"},
		{"remote and refused", "http://[::2]:1", true, Unreachable, "does not answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lookPath := func(string) (string, error) { return "", exec.ErrNotFound }
			if c.installed {
				lookPath = func(string) (string, error) { return "/usr/local/bin/ollama", nil }
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			got := Detect(ctx, c.host, lookPath, &http.Client{Timeout: 2 * time.Second})
			if got.State != c.want || !strings.Contains(got.Advice(), c.advice) {
				t.Fatalf("state %d (%v), advice %q; want %d, %q", got.State, got.Err, got.Advice(), c.want, c.advice)
			}
		})
	}
}

// TestListening: a listening server is seen by one dial; a refused port, a host that is not
// a URL and a cancelled context are not.
func TestListening(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	defer up.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		host string
		want bool
	}{
		{"listening", context.Background(), up.URL, true},
		{"refused", context.Background(), refusedHost(t), false},
		{"not a URL", context.Background(), "127.0.0.1:11434", false},
		{"cancelled", cancelled, up.URL, false},
	}
	for _, c := range cases {
		if got := Listening(c.ctx, c.host); got != c.want {
			t.Errorf("%s: Listening(%q) = %v, want %v", c.name, c.host, got, c.want)
		}
	}
}

// TestStartTheInstalledServer: with a fake `ollama` on PATH that is not serving, pi finds it,
// starts `ollama serve` as its child, talks to it once it answers (no model yet: the advice
// offers a pull), and stops it.
func TestStartTheInstalledServer(t *testing.T) {
	fakeOllamaOnPath(t, "", "")
	host := refusedHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := Detect(ctx, host, exec.LookPath, nil)
	if c.State != NotServing {
		t.Fatalf("before: state %d (%v), want NotServing", c.State, c.Err)
	}
	srv, err := Start(ctx, c.Binary, host, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after := Detect(ctx, host, exec.LookPath, nil)
	if after.State != Serving || len(after.Models) != 0 || !strings.Contains(after.Advice(), "has no model yet") {
		t.Fatalf("after start: state %d (%v), models %v, advice %q", after.State, after.Err, after.Models, after.Advice())
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if gone := Detect(ctx, host, exec.LookPath, nil); gone.State != NotServing {
		t.Fatalf("after stop: state %d, want NotServing again", gone.State)
	}
}

// TestStartSaysWhyTheServerWouldNotStart: a server that exits at once, or never answers, is
// an error quoting what it printed, and nothing is left running.
func TestStartSaysWhyTheServerWouldNotStart(t *testing.T) {
	cases := []struct {
		name, script, want string
		ready              time.Duration
	}{
		{"exits", "echo 'Error: listen tcp 127.0.0.1:11434: bind: address already in use' >&2\nexit 1\n", "address already in use", 0},
		{"never answers", "echo 'starting slowly'\nexec sleep 30\n", "did not answer", 300 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := fakeOllamaOnPath(t, "", c.script)
			t.Setenv("PATH", filepath.Dir(bin)+":/usr/bin:/bin")
			start := time.Now()
			_, err := Start(context.Background(), bin, refusedHost(t), StartOptions{Ready: c.ready})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Start: %v, want an error saying %q", err, c.want)
			}
			if time.Since(start) > 20*time.Second {
				t.Fatalf("Start took %v to give up", time.Since(start))
			}
		})
	}
}
