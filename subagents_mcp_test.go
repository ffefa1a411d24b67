package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"pi/internal/mcptest"
	"pi/provider"
	"pi/provider/faux"
)

// A general-purpose child of a session with an MCP server gets the session's MCP tools, served
// by its own scripts, and can call them (it used to fail at its start: a tool name without
// its tool).
func TestSubagentGetsTheParentsMCPTools(t *testing.T) {
	s := mcptest.New()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	home, cwd := t.TempDir(), t.TempDir()
	toml := fmt.Sprintf("[subagents]\nenabled = true\n[mcp.servers.local]\nurl = %s\n", tomlString(srv.URL+"/mcp"))
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644)
	var mu sync.Mutex
	var childTools []string
	h := subagentSessionIn(t, home, cwd, cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		switch {
		case strings.HasPrefix(who, "CHILD") && last.Role == provider.RoleUser:
			mu.Lock()
			childTools = toolNamesOf(req)
			mu.Unlock()
			return subCall("mcp__local__echo", map[string]any{"text": "from the child"})
		case strings.HasPrefix(who, "CHILD"):
			return faux.Text("child got: " + last.TextContent())
		case last.Role == provider.RoleUser:
			return subCall("Agent", map[string]any{"prompt": "CHILD echo something", "description": "echo"})
		}
		return faux.Text("done")
	})
	send(t, h, "go")
	res := strings.Join(toolResultTexts(h), "\n")
	if !strings.Contains(res, "status: done") || !strings.Contains(res, "child got: echo: from the child") {
		t.Fatalf("the child should run and answer with the MCP tool's result:\n%s", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(childTools, "mcp__local__echo") || !slices.Contains(childTools, "read") {
		t.Errorf("the child was offered %v, want the session's tools with mcp__local__echo", childTools)
	}
}
