package lua

import (
	"strings"
	"testing"
	"time"
)

// TestGuardHooksFailClosed: a tool_call handler registered with {guard = true} blocks the call
// when it raises or runs past its deadline; an ordinary one lets the call go on, as before.
func TestGuardHooksFailClosed(t *testing.T) {
	tests := []struct {
		name, src   string
		block       bool
		reasonHas   string
		wantAllowed bool
	}{
		{"guard raises", `pi.on("tool_call", function() error("policy broke") end, {guard = true})`, true, "policy broke", false},
		{"guard times out", `pi.on("tool_call", function() while true do end end, {guard = true})`, true, "guard hook", false},
		{"plain hook raises", `pi.on("tool_call", function() error("oops") end)`, false, "", false},
		{"guard allows", `pi.on("tool_call", function() return {allow = true} end, {guard = true})`, false, "", true},
		{"plain hook cannot allow", `pi.on("tool_call", function() return {allow = true} end)`, false, "", false},
		{"block after allow wins", `pi.on("tool_call", function() return {allow = true} end, {guard = true})
			pi.on("tool_call", function() return {block = true, reason = "no"} end)`, true, "no", false},
		{"guard sees read_only", `pi.on("tool_call", function(ev)
			if not ev.read_only then return {block = true, reason = "changes things"} end end, {guard = true})`, true, "changes things", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.opts.HookTimeout = 100 * time.Millisecond
			r := e.start(t, tt.src)
			v := r.CheckToolCall(ctxT(t), ToolCallEvent{Name: "bash", ID: "1", Args: map[string]any{"command": "ls"}})
			if v.Block != tt.block || !strings.Contains(v.Reason, tt.reasonHas) || v.Allowed != tt.wantAllowed {
				t.Fatalf("verdict %+v; notices %v", v, e.notices())
			}
		})
	}
}

func TestGuardOnlyForToolCall(t *testing.T) {
	e := newEnv(t)
	e.start(t, `pi.on("input", function() end, {guard = true})`)
	if _, ok := e.noticeContaining("guard is for tool_call"); !ok {
		t.Errorf("notices %v", e.notices())
	}
}

// A closed runtime cannot run a guard: the call is blocked rather than let through.
func TestClosedRuntimeWithGuardBlocks(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.on("tool_call", function() return {allow = true} end, {guard = true})`)
	r.Close()
	if v := r.CheckToolCall(ctxT(t), ToolCallEvent{Name: "bash", ID: "1", Args: map[string]any{}}); !v.Block {
		t.Errorf("verdict %+v", v)
	}
}
