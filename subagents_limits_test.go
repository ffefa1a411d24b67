package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"pi/provider"
	"pi/provider/faux"
)

// sessionFiles counts the session files under home's sessions folder.
func sessionFiles(t *testing.T, home string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(home, "sessions"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			n++
		}
		return nil
	})
	return n
}

// limitSession is a session whose every level, the top one and each child of the nesting
// type "rec", starts calls children of type rec at its first turn, and answers with the
// results once they are back.
func limitSession(t *testing.T, toml string, calls int) (h *harness, home string, errors *atomic.Int32) {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644)
	os.MkdirAll(filepath.Join(home, "agents"), 0o755)
	os.WriteFile(filepath.Join(home, "agents", "rec.md"), []byte("---\nname: rec\ndescription: starts more of itself\ntools: read, Agent\n---\nRecurse.\n"), 0o644)
	errors = &atomic.Int32{}
	h = subagentSessionIn(t, home, cwd, cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if last.Role == provider.RoleUser {
			var blocks []provider.Block
			for i := range calls {
				blocks = append(blocks, faux.Call("c"+string(rune('a'+i)), "Agent",
					map[string]any{"prompt": "RECURSE", "description": "again", "subagent_type": "rec"}))
			}
			m := faux.Blocks(blocks...)
			m.StopReason = provider.StopToolUse
			return m
		}
		for _, m := range req.Messages {
			if m.Role == provider.RoleToolResult && strings.Contains(m.TextContent(), "limit") {
				errors.Add(1)
			}
		}
		return faux.Text("done")
	})
	return h, home, errors
}

// A recursive agent type stops at [subagents] max_depth (default 2): the top session, its
// child and its grandchild write a session file each, and the grandchild's Agent call gets
// an error result naming the limit.
func TestSubagentDepthLimitStopsARecursiveType(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		files      int
	}{
		{"default 2", "[subagents]\nenabled = true\n", 3},
		{"max_depth 1", "[subagents]\nenabled = true\nmax_depth = 1\n", 2},
		{"max_depth 4", "[subagents]\nenabled = true\nmax_depth = 4\n", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, home, _ := limitSession(t, tc.toml, 1)
			send(t, h, "go")
			if n := sessionFiles(t, home); n != tc.files {
				t.Errorf("%d session files, want %d (the top session and a chain of %d children)", n, tc.files, tc.files-1)
			}
			res := strings.Join(toolResultTexts(h), "\n")
			if !strings.Contains(res, "status: done") {
				t.Errorf("the top session's child should end done: %s", res)
			}
		})
	}
}

// The deepest child's Agent call is refused with an error result that says why.
func TestSubagentDepthLimitErrorResult(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "pi.toml"), []byte("[subagents]\nenabled = true\nmax_depth = 1\n"), 0o644)
	os.MkdirAll(filepath.Join(home, "agents"), 0o755)
	os.WriteFile(filepath.Join(home, "agents", "rec.md"), []byte("---\nname: rec\ndescription: r\ntools: read, Agent\n---\nRecurse.\n"), 0o644)
	var refusal atomic.Value
	h := subagentSessionIn(t, home, cwd, cliOptions{}, func(who string, last provider.Message, req *provider.Request) provider.Message {
		if last.Role == provider.RoleUser {
			return subCall("Agent", map[string]any{"prompt": "RECURSE", "description": "again", "subagent_type": "rec"})
		}
		if who == "RECURSE" && last.Role == provider.RoleToolResult {
			refusal.Store(last)
		}
		return faux.Text("done")
	})
	send(t, h, "go")
	got, _ := refusal.Load().(provider.Message)
	if !got.IsError || !strings.Contains(got.TextContent(), "subagent depth limit 1 reached") {
		t.Fatalf("the child's Agent call should get an error result naming the limit, got %+v", got)
	}
}

// A fan-out (every level starts three children) stops at [subagents] max_children for the
// whole tree of sessions, not per session.
func TestSubagentChildrenCapStopsAFanOut(t *testing.T) {
	h, home, refused := limitSession(t, "[subagents]\nenabled = true\nmax_children = 5\n", 3)
	send(t, h, "go")
	if n := sessionFiles(t, home); n != 6 {
		t.Errorf("%d session files, want 6: the top session and the 5 children the cap allows", n)
	}
	if refused.Load() == 0 {
		t.Error("no session saw an error result naming the limit")
	}
}
