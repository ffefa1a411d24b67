package lua

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pi/internal/mcptest"
	"pi/internal/testwait"
	"pi/tools"
)

// TestMain lets this test binary be the MCP server the tests configure: with
// PI_MCPTEST_STDIO=1 it serves mcptest over stdin and stdout (cancellations appended to the
// file PI_MCPTEST_LOG names) instead of running tests.
func TestMain(m *testing.M) {
	if os.Getenv("PI_MCPTEST_STDIO") == "1" {
		s := mcptest.New()
		if log := os.Getenv("PI_MCPTEST_LOG"); log != "" {
			note := func(what string) func(id string) {
				return func(id string) {
					f, _ := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
					f.WriteString(what + " " + id + "\n")
					f.Close()
				}
			}
			s.OnCancel, s.OnSlow = note("cancelled"), note("waiting")
		}
		s.ServeStdio(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mcpEnv is a runtime whose pi.config("mcp") names one server, fake, with conf.
type mcpEnv struct {
	*env
	r *Runtime
	// slowWaiting reports whether the server holds a slow request, waiting for its cancellation.
	slowWaiting func() bool
	sentMu      sync.Mutex // guards sent (env.mu guards the notices)
	sent        []string   // pi.send_user_message texts
}

func stdioServer(t testing.TB, log string) map[string]any {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": exe, "args": []any{"-test.run=^$"}, "enabled": true,
		"env": map[string]any{"PI_MCPTEST_STDIO": "1", "PI_MCPTEST_LOG": log}, "timeout": 10}
}

func startMCP(t testing.TB, conf map[string]any, trust bool) *mcpEnv {
	t.Helper()
	e := &mcpEnv{env: newEnv(t)}
	e.opts.Trust = trust
	e.opts.Host.Config = func(name string) map[string]any {
		if name != "mcp" {
			return nil
		}
		return map[string]any{"servers": map[string]any{"fake": conf}}
	}
	e.opts.Host.SendUserMessage = func(text, _ string) error {
		e.sentMu.Lock()
		e.sent = append(e.sent, text)
		e.sentMu.Unlock()
		return nil
	}
	e.r = e.start(t, "")
	e.r.Input(ctxT(t), "hello", nil, "interactive") // the first prompt starts the server
	return e
}

func (e *mcpEnv) toolNames() []string {
	var names []string
	for _, tl := range e.r.Tools() {
		names = append(names, tl.Info().Name)
	}
	return names
}

func (e *mcpEnv) call(t *testing.T, ctx context.Context, name string, args map[string]any) (tools.Result, []string) {
	t.Helper()
	for _, tl := range e.r.Tools() {
		if tl.Info().Name == name {
			var updates []string
			res, _ := tl.Execute(ctx, "c1", args, func(u tools.Result) { updates = append(updates, text(u)) })
			return res, updates
		}
	}
	t.Fatalf("no tool %s among %v (notices %v)", name, e.toolNames(), e.notices())
	return tools.Result{}, nil
}

func (e *mcpEnv) command(t *testing.T, name, args string) {
	t.Helper()
	for _, c := range e.r.Commands() {
		if c.Name == name {
			if err := c.Run(ctxT(t), args); err != nil {
				t.Fatalf("/%s %s: %v", name, args, err)
			}
			return
		}
	}
	t.Fatalf("no command /%s", name)
}

// mcpTransports runs a test over stdio (this binary as the server) and over streamable HTTP
// (an httptest server on 127.0.0.1).
func mcpTransports(t *testing.T, run func(t *testing.T, e *mcpEnv, cancelled func() string)) {
	t.Run("stdio", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "cancelled.log")
		e := startMCP(t, stdioServer(t, log), true)
		logged := func(what string) string {
			data, _ := os.ReadFile(log)
			var ids []string
			for line := range strings.SplitSeq(string(data), "\n") {
				if id, ok := strings.CutPrefix(line, what+" "); ok {
					ids = append(ids, id)
				}
			}
			return strings.Join(ids, ",")
		}
		e.slowWaiting = func() bool { return logged("waiting") != "" }
		run(t, e, func() string { return logged("cancelled") })
	})
	t.Run("http", func(t *testing.T) {
		s := mcptest.New()
		var waiting atomic.Bool
		s.OnSlow = func(string) { waiting.Store(true) }
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		e := startMCP(t, map[string]any{"url": srv.URL + "/mcp", "enabled": true, "timeout": 10}, true)
		e.slowWaiting = waiting.Load
		run(t, e, func() string { return strings.Join(s.Cancelled(), ",") })
	})
}

func TestMCPTools(t *testing.T) {
	mcpTransports(t, func(t *testing.T, e *mcpEnv, _ func() string) {
		tests := []struct {
			tool    string
			args    map[string]any
			want    string // the text blocks, joined with |
			isError bool
			updates string
			images  int
		}{
			{"mcp__fake__echo", map[string]any{"text": "hi"}, "echo: hi", false, "", 0},
			{"mcp__fake__progress", map[string]any{"steps": 3}, "3 steps done", false, "step 1 (1/3),step 2 (2/3),step 3 (3/3)", 0},
			{"mcp__fake__image", nil, "an image:|[resource file:///notes.txt]\nbuy milk", false, "", 1},
			{"mcp__fake__fail", nil, "it failed on purpose", true, "", 0},
		}
		for _, tc := range tests {
			res, updates := e.call(t, ctxT(t), tc.tool, tc.args)
			var texts []string
			images := 0
			for _, b := range res.Content {
				if b.Type == "image" {
					images++
				} else {
					texts = append(texts, b.Text)
				}
			}
			if got := strings.Join(texts, "|"); got != tc.want || res.IsError != tc.isError || images != tc.images ||
				strings.Join(updates, ",") != tc.updates {
				t.Errorf("%s: got %q error %v images %d updates %q", tc.tool, got, res.IsError, images, updates)
			}
		}
		e.noErrors(t)
	})
}

// The user aborts a call: the tool returns at once and the server hears of the cancellation.
func TestMCPCancel(t *testing.T) {
	mcpTransports(t, func(t *testing.T, e *mcpEnv, cancelled func() string) {
		ctx, cancel := context.WithCancel(ctxT(t))
		var cancelledAt atomic.Int64
		go func() { // cancel once the server holds the call: before, it could not hear of it
			if testwait.Within(testwait.Deadline, e.slowWaiting) {
				cancelledAt.Store(time.Now().UnixNano())
			}
			cancel()
		}()
		res, _ := e.call(t, ctx, "mcp__fake__slow", nil)
		if d := time.Since(time.Unix(0, cancelledAt.Load())); cancelledAt.Load() == 0 || d > 3*time.Second || !res.IsError {
			t.Errorf("the call ended %v after its cancellation: %+v", d, res)
		}
		if !testwait.Within(testwait.Deadline, func() bool { return cancelled() != "" }) {
			t.Errorf("the server never heard of the cancellation")
		}
		if res, _ := e.call(t, ctxT(t), "mcp__fake__echo", map[string]any{"text": "still"}); text(res) != "echo: still" {
			t.Errorf("after the abort: %q", text(res))
		}
	})
}

// The server's list changes: its tools are listed again before the next prompt. The
// notification comes after grow's answer, so prompts go until one has seen it.
func TestMCPToolListChanged(t *testing.T) {
	mcpTransports(t, func(t *testing.T, e *mcpEnv, _ func() string) {
		e.call(t, ctxT(t), "mcp__fake__grow", nil)
		testwait.Until(t, "mcp__fake__extra listed at a prompt", func() bool {
			e.r.Input(ctxT(t), "next prompt", nil, "interactive")
			return slices.ContainsFunc(e.r.Tools(), func(tl tools.Tool) bool { return tl.Info().Name == "mcp__fake__extra" })
		})
		if res, _ := e.call(t, ctxT(t), "mcp__fake__extra", nil); !res.IsError || !strings.Contains(text(res), "unknown tool extra") {
			t.Errorf("extra: %+v", res)
		}
	})
}

func TestMCPPromptsAndStatus(t *testing.T) {
	mcpTransports(t, func(t *testing.T, e *mcpEnv, _ func() string) {
		e.command(t, "mcp:fake:greet", "Bob")
		e.sentMu.Lock()
		sent := strings.Join(e.sent, "|")
		e.sentMu.Unlock()
		if sent != "Say hello to Bob." {
			t.Errorf("the prompt sent %q", sent)
		}
		// After /reload the server starts again at the next prompt: a prompt command typed
		// then is expanded by the input handler, before its command exists again.
		if err := e.r.Reload(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if got := e.r.Input(ctxT(t), "/mcp:fake:greet Ann Lee", nil, "interactive").Text; got != "Say hello to Ann Lee." {
			t.Errorf("after reload: %q", got)
		}
		e.command(t, "mcp", "")
		n, ok := e.noticeContaining("MCP servers:")
		if !ok || !strings.Contains(n.Message, "fake  ready") || !strings.Contains(n.Message, "mcp__fake__echo") ||
			!strings.Contains(n.Message, "/mcp:fake:greet") {
			t.Errorf("/mcp said %q", n.Message)
		}
	})
}

// A server that crashes is started again once; after a second crash its tools say so until
// /mcp restart.
func TestMCPCrashRestartsOnce(t *testing.T) {
	e := startMCP(t, stdioServer(t, ""), true)
	for round, want := range []string{"echo: back", "is not running: exited with code 3"} {
		res, _ := e.call(t, ctxT(t), "mcp__fake__crash", nil)
		if !res.IsError || !strings.Contains(text(res), "exited with code 3") {
			t.Fatalf("crash %d: %+v", round, res)
		}
		// on_exit restarted it (or gave up) before the crash's call heard of the exit
		if res, _ := e.call(t, ctxT(t), "mcp__fake__echo", map[string]any{"text": "back"}); !strings.Contains(text(res), want) {
			t.Fatalf("after crash %d: %q, want %q", round+1, text(res), want)
		}
	}
	e.command(t, "mcp", "restart fake")
	if res, _ := e.call(t, ctxT(t), "mcp__fake__echo", map[string]any{"text": "again"}); text(res) != "echo: again" {
		t.Errorf("after /mcp restart: %q", text(res))
	}
}

func TestMCPConfiguration(t *testing.T) {
	tests := []struct {
		name   string
		change func(conf map[string]any)
		trust  bool
		tools  string
		notice string
	}{
		{"allow-list", func(c map[string]any) { c["tools"] = []any{"echo", "fail"} }, true, "mcp__fake__echo,mcp__fake__fail", ""},
		{"disabled", func(c map[string]any) { c["enabled"] = false }, true, "", ""},
		{"project untrusted", func(c map[string]any) { c["project"] = true }, false, "", "not starting fake from the project's .pi/pi.toml"},
		{"project trusted", func(c map[string]any) { c["project"] = true; c["tools"] = []any{"echo"} }, true, "mcp__fake__echo", ""},
		{"not a program", func(c map[string]any) { c["command"] = "/nonexistent/mcp-server" }, true, "", "MCP server fake is not running"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conf := stdioServer(t, "")
			tc.change(conf)
			e := startMCP(t, conf, tc.trust)
			if got := strings.Join(e.toolNames(), ","); got != tc.tools {
				t.Errorf("tools %q, want %q", got, tc.tools)
			}
			if _, ok := e.noticeContaining(tc.notice); tc.notice != "" && !ok {
				t.Errorf("no notice %q in %v", tc.notice, e.notices())
			}
		})
	}
}

// BenchmarkMCPToolCall is one tools/call round trip through the bundled script: the Lua tool,
// JSON both ways, the server (this binary) over stdio or HTTP on 127.0.0.1, the answer.
func BenchmarkMCPToolCall(b *testing.B) {
	for _, transport := range []string{"stdio", "http"} {
		b.Run(transport, func(b *testing.B) {
			conf := stdioServer(b, "")
			if transport == "http" {
				srv := httptest.NewServer(mcptest.New().Handler())
				defer srv.Close()
				conf = map[string]any{"url": srv.URL, "enabled": true}
			}
			e := startMCP(b, conf, true)
			var echo tools.Tool
			for _, tl := range e.r.Tools() {
				if tl.Info().Name == "mcp__fake__echo" {
					echo = tl
				}
			}
			if echo == nil {
				b.Fatalf("no echo tool: %v", e.notices())
			}
			args := map[string]any{"text": "x"}
			b.ResetTimer()
			for range b.N {
				if res, _ := echo.Execute(context.Background(), "c", args, nil); text(res) != "echo: x" {
					b.Fatalf("got %q", text(res))
				}
			}
		})
	}
}

// FuzzMCPServerOutput runs the bundled script against a "server" that prints the fuzzed
// bytes and exits: whatever a server says, the script must not fail (a "lua:" notice), and
// the runtime must go on answering.
func FuzzMCPServerOutput(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"prompts":{}}}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"x","inputSchema":{"type":"nope"}},7,{"name":{}}]}}` + "\n",
		`{"id":1,"error":7}` + "\n" + `{"id":1,"error":{"message":{},"code":"x"}}` + "\n",
		`{"method":"notifications/progress","params":{"progressToken":null,"message":{}}}` + "\n",
		`{"method":"ping","id":{"a":1}}` + "\n" + `[1,2,{"id":1}]` + "\n" + `"text"` + "\n" + `null` + "\n",
		"not json\n{\"id\":\r\n\n\n",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	out := filepath.Join(dir, "out")
	e := startMCP(f, map[string]any{"command": "cat", "args": []any{out}, "enabled": true, "timeout": 2}, true)
	f.Fuzz(func(t *testing.T, data string) {
		if err := os.WriteFile(out, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		e.env.mu.Lock()
		e.notes = nil
		e.env.mu.Unlock()
		for _, c := range e.r.Commands() {
			if c.Name == "mcp" {
				c.Run(ctxT(t), "restart fake")
			}
		}
		e.r.Input(ctxT(t), "a prompt", nil, "interactive")
		for _, n := range e.notices() {
			if strings.HasPrefix(n.Message, "lua:") {
				t.Fatalf("the script failed on %q: %s", data, n.Message)
			}
		}
	})
}

// windowSession is a session with a model window of window tokens whose tools are the
// runtime's (pi.all_tools, pi.context_usage).
type windowSession struct {
	fakeSession
	window atomic.Int64
	r      atomic.Pointer[Runtime]
}

func (w *windowSession) ContextUsage() (int, int) { return 0, int(w.window.Load()) }
func (w *windowSession) AllTools() []tools.Tool {
	if r := w.r.Load(); r != nil {
		return r.Tools()
	}
	return nil
}

// With the declarations past a tenth of the window the MCP tools are deferred behind
// mcp_search, which finds them by name or keyword and adds what it found; with room again, or
// with [mcp] search = false, they are declared in full.
func TestMCPSearchTool(t *testing.T) {
	s := mcptest.New()
	s.DescriptionTail = strings.Repeat("Words that make the declaration longer. ", 5)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	cases := []struct {
		name   string
		window int64
		search any // [mcp] search; nil: unset
		want   bool
	}{
		{"a small window", 1000, nil, true},
		{"a large window", 1_000_000, nil, false},
		{"forced on", 1_000_000, true, true},
		{"forced off", 1000, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := &mcpEnv{env: newEnv(t)}
			sess := &windowSession{}
			sess.window.Store(tc.window)
			e.opts.Host.Session = sess
			e.opts.Host.Config = func(name string) map[string]any {
				if name != "mcp" {
					return nil
				}
				conf := map[string]any{"servers": map[string]any{"fake": map[string]any{"url": srv.URL + "/mcp", "enabled": true, "timeout": 10}}}
				if tc.search != nil {
					conf["search"] = tc.search
				}
				return conf
			}
			e.r = e.start(t, "")
			sess.r.Store(e.r)
			e.r.Input(ctxT(t), "hello", nil, "interactive")
			deferred := 0
			for _, tl := range e.r.Tools() {
				if strings.HasPrefix(tl.Info().Name, "mcp__fake__") && tl.Info().Deferred {
					deferred++
				}
			}
			if got := slices.Contains(e.toolNames(), "mcp_search"); got != tc.want || (deferred > 0) != tc.want {
				t.Fatalf("tools %v, %d deferred; want the search tool %v (notices %v)", e.toolNames(), deferred, tc.want, e.notices())
			}
			if !tc.want {
				return
			}
			searches := []struct{ query, added, text string }{
				{"echo", "mcp__fake__echo", "- mcp__fake__echo: Echo the text"},
				{"mcp__fake__fail", "mcp__fake__fail", "mcp__fake__fail"},
				{"report progress", "mcp__fake__progress", "mcp__fake__progress"},
				{"no such thing", "", "No MCP tool matches \"no such thing\". The tools are fake: crash, echo, fail, grow, image, progress, slow."},
			}
			for _, q := range searches {
				res, _ := e.call(t, ctxT(t), "mcp_search", map[string]any{"query": q.query})
				if got := strings.Join(res.AddedTools, ","); got != q.added || !strings.Contains(text(res), q.text) || res.IsError != (q.added == "") {
					t.Errorf("search %q: added %q, text %q, error %v; want %q and %q", q.query, got, text(res), res.IsError, q.added, q.text)
				}
			}
			sess.window.Store(1_000_000) // a model with room: the schemas come back
			e.r.Input(ctxT(t), "again", nil, "interactive")
			if tc.search == nil && slices.Contains(e.toolNames(), "mcp_search") {
				t.Errorf("with room in the window the search tool stayed: %v", e.toolNames())
			}
		})
	}
}
