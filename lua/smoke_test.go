package lua

import (
	"testing"
)

func TestSmoke(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.on("tool_call", function(ev) if ev.tool_name == "bash" then ev.input.command = "echo hi" end end)
pi.register_tool{name="x", description="d", execute=function(args, ctx) local r = pi.exec("echo hello") return r.stdout end}
`)
	args := map[string]any{"command": "rm -rf /"}
	block, _ := r.ToolCall(ctxT(t), "bash", "1", args)
	if block || args["command"] != "echo hi" {
		t.Fatal(block, args)
	}
	res, err := r.Tools()[0].Execute(ctxT(t), "c1", map[string]any{}, nil)
	t.Log(res, err)
	e.noErrors(t)
}
