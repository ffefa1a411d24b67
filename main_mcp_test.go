package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"pi/internal/mcptest"
	"pi/internal/pitest"
)

// mcpServerScript finds an npm MCP server's entry point in the cache .ci/run installs into
// ($PI_MCP_NPM, default ~/.cache/pi-ci/npm-mcp), or skips the test saying what is missing.
func mcpServerScript(t *testing.T, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the MCP end-to-end tests run real servers on Node (.ci/run installs them)")
	}
	dir := os.Getenv("PI_MCP_NPM")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "pi-ci", "npm-mcp")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("@modelcontextprotocol/%s is not installed in %s: run .ci/run, or npm install --prefix %s @modelcontextprotocol/%s (or set PI_MCP_NPM)", pkg, dir, dir, pkg)
	}
	return entry
}

// mcpEvent is what these tests read of pi's JSON events.
type mcpEvent struct {
	Type          string `json:"type"`
	ToolCallID    string `json:"toolCallId"`
	IsError       bool   `json:"isError"`
	PartialResult struct {
		Content []struct{ Text string } `json:"content"`
	} `json:"partialResult"`
	Result struct {
		Content []struct{ Type, Text, MimeType string } `json:"content"`
	} `json:"result"`
}

// mcpCall is one tool call of a faux reply and what its result must hold.
type mcpCall struct {
	id, tool string
	args     map[string]any
	want     string // in the text of the result
	isError  bool
	image    bool // the result holds an image block
	updates  int  // at least this many partial results
}

// runMCP writes pi.toml's [mcp.servers] (toml) and a faux script calling calls at once, runs
// pi --mode json in a temporary project and checks every result.
func runMCP(t *testing.T, toml string, calls []mcpCall) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".pihome"), 0o755)
	os.WriteFile(filepath.Join(dir, ".pihome", "pi.toml"), []byte(toml), 0o644)
	var blocks []map[string]any
	for _, c := range calls {
		args := c.args
		if args == nil {
			args = map[string]any{}
		}
		blocks = append(blocks, map[string]any{"type": "toolCall", "id": c.id, "name": c.tool, "arguments": args})
	}
	script, _ := json.Marshal([]any{map[string]any{"content": blocks},
		map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}})
	scriptPath := filepath.Join(dir, "faux.json")
	os.WriteFile(scriptPath, script, 0o644)
	r := runPi(t, buildPi(t), dir, "--faux-script", scriptPath, "--mode", "json", "use the MCP tools")
	if r.code != 0 {
		t.Fatalf("code %d, stderr %s", r.code, r.stderr)
	}
	ends, updates := map[string]mcpEvent{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev mcpEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		switch ev.Type {
		case "tool_execution_end":
			ends[ev.ToolCallID] = ev
		case "tool_execution_update":
			updates[ev.ToolCallID]++
		}
	}
	for _, c := range calls {
		ev, ok := ends[c.id]
		var text []string
		image := false
		for _, b := range ev.Result.Content {
			text = append(text, b.Text)
			image = image || (b.Type == "image" && b.MimeType != "")
		}
		got := strings.Join(text, "\n")
		if !ok || !strings.Contains(got, c.want) || ev.IsError != c.isError || image != c.image || updates[c.id] < c.updates {
			t.Errorf("%s: got %q (error %v, image %v, %d updates); want %q (error %v, image %v, %d updates)\nstderr: %s",
				c.tool, got, ev.IsError, image, updates[c.id], c.want, c.isError, c.image, c.updates, r.stderr)
		}
	}
}

func TestMCPServerEverything(t *testing.T) {
	entry := mcpServerScript(t, "server-everything")
	runMCP(t, fmt.Sprintf("[mcp.servers.everything]\ncommand = \"node\"\nargs = [%s, \"stdio\"]\n", pitest.TOMLString(entry)), []mcpCall{
		{id: "c1", tool: "mcp__everything__echo", args: map[string]any{"message": "hi there"}, want: "Echo: hi there"},
		{id: "c2", tool: "mcp__everything__get-tiny-image", want: "image", image: true},
		{id: "c3", tool: "mcp__everything__trigger-long-running-operation", args: map[string]any{"duration": 1, "steps": 3},
			want: "Long running operation completed", updates: 3},
		{id: "c4", tool: "mcp__everything__gzip-file-as-resource", args: map[string]any{"name": "x.gz", "data": "not a url"},
			want: "Invalid URL", isError: true},
		{id: "c5", tool: "mcp__everything__get-sum", args: map[string]any{"a": 2, "b": 3}, want: "5"},
	})
}

func TestMCPServerFilesystem(t *testing.T) {
	entry := mcpServerScript(t, "server-filesystem")
	files := t.TempDir()
	os.WriteFile(filepath.Join(files, "notes.txt"), []byte("buy milk\n"), 0o644)
	runMCP(t, fmt.Sprintf("[mcp.servers.fs]\ncommand = \"node\"\nargs = [%s, %s]\ntools = [\"read_text_file\", \"list_directory\"]\n",
		pitest.TOMLString(entry), pitest.TOMLString(files)), []mcpCall{
		{id: "c1", tool: "mcp__fs__read_text_file", args: map[string]any{"path": filepath.Join(files, "notes.txt")}, want: "buy milk"},
		{id: "c2", tool: "mcp__fs__list_directory", args: map[string]any{"path": files}, want: "[FILE] notes.txt"},
		{id: "c3", tool: "mcp__fs__read_text_file", args: map[string]any{"path": "/etc/passwd"}, want: "outside allowed directories", isError: true},
		{id: "c4", tool: "mcp__fs__write_file", args: map[string]any{"path": filepath.Join(files, "x"), "content": "no"},
			want: "There is no tool named", isError: true}, // not in the allow-list
	})
}

// The streamable HTTP transport, against a server this test runs on 127.0.0.1.
func TestMCPStreamableHTTP(t *testing.T) {
	s := mcptest.New()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	runMCP(t, fmt.Sprintf("[mcp.servers.local]\nurl = %s\n", pitest.TOMLString(srv.URL+"/mcp")), []mcpCall{
		{id: "c1", tool: "mcp__local__echo", args: map[string]any{"text": "over http"}, want: "echo: over http"},
		{id: "c2", tool: "mcp__local__progress", args: map[string]any{"steps": 2}, want: "2 steps done", updates: 2},
		{id: "c3", tool: "mcp__local__image", want: "buy milk", image: true},
		{id: "c4", tool: "mcp__local__fail", want: "it failed on purpose", isError: true},
	})
}

// TestMCPSearchToolInSmallWindow runs three MCP servers whose tool declarations together take
// more than a tenth of an 8k window: the first request offers mcp_search and no MCP tool; the
// model's search adds the echo tools, the next request offers them, and the call runs.
func TestMCPSearchToolInSmallWindow(t *testing.T) {
	var urls []string
	for range 3 {
		s := mcptest.New()
		s.DescriptionTail = strings.Repeat("This sentence only makes the declaration longer. ", 4)
		srv := httptest.NewServer(s.Handler())
		defer srv.Close()
		urls = append(urls, srv.URL+"/mcp")
	}
	replies := []string{
		openAIToolCall("c1", "mcp_search", `{"query":"echo"}`),
		openAIToolCall("c2", "mcp__b__echo", `{"text":"hi"}`),
		`{"choices":[{"delta":{"content":"done"},"finish_reason":"stop"}]}`,
	}
	var bodies [][]byte
	var mu sync.Mutex
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", replies[min(n, len(replies)-1)])
	}))
	defer model.Close()

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".pihome"), 0o755)
	toml := fmt.Sprintf("[providers.local]\nkind = \"openai\"\nbase_url = %s\n[[providers.local.models]]\nid = \"m\"\ncontext_window = 8192\n",
		pitest.TOMLString(model.URL+"/v1"))
	for i, name := range []string{"a", "b", "c"} {
		toml += fmt.Sprintf("[mcp.servers.%s]\nurl = %s\n", name, pitest.TOMLString(urls[i]))
	}
	os.WriteFile(filepath.Join(dir, ".pihome", "pi.toml"), []byte(toml), 0o644)
	r := runPi(t, buildPi(t), dir, "--model", "local/m", "--no-session", "--mode", "json", "say hi with the echo tool")
	if r.code != 0 {
		t.Fatalf("code %d, stderr %s", r.code, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3\nstdout %s\nstderr %s", len(bodies), r.stdout, r.stderr)
	}
	first, second := requestTools(t, bodies[0]), requestTools(t, bodies[1])
	if !slices.Contains(first, "mcp_search") || slices.ContainsFunc(first, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Errorf("the first request offers %v: want mcp_search and no MCP tool", first)
	}
	if !slices.Contains(second, "mcp__b__echo") || slices.Contains(second, "mcp__b__progress") {
		t.Errorf("after the search the request offers %v: want the echo tools, not the others", second)
	}
	var echoed bool
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev mcpEvent
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "tool_execution_end" && ev.ToolCallID == "c2" {
			echoed = !ev.IsError && len(ev.Result.Content) > 0 && ev.Result.Content[0].Text == "echo: hi"
		}
	}
	if !echoed {
		t.Errorf("the echo call did not run\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}
}

// openAIToolCall is one streamed chunk of an OpenAI-compatible reply calling name.
func openAIToolCall(id, name, args string) string {
	call, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"finish_reason": "tool_calls",
		"delta": map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": id, "type": "function",
			"function": map[string]any{"name": name, "arguments": args}}}}}}})
	return string(call)
}

// requestTools names the tools an OpenAI-compatible request body offers.
func requestTools(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request %s: %v", body, err)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}
