package lua

import (
	"context"

	lua "github.com/yuin/gopher-lua"
)

// moreEvents are the events beyond the agent loop's that pi's extensions see: the session's
// moves (each session_before_* may cancel), the user's shell commands, thinking changes.
func moreEvents() []string {
	return []string{"session_before_switch", "session_before_fork", "session_before_tree", "session_tree",
		"thinking_level_select", "user_bash"}
}

// BeforeSession runs the handlers of a session_before_* event (switch {reason, target},
// fork {entry_id}, tree {target_id}); any that returns {cancel = true} stops the move.
func (r *Runtime) BeforeSession(ctx context.Context, event string, payload map[string]any) (cancel bool) {
	if !r.HasHandlers(event) {
		return false
	}
	r.chain(ctx, event, false, func(v *vm) []lua.LValue {
		return []lua.LValue{v.toLua(payload)}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		cancel = cancel || ok && lua.LVAsBool(t.RawGetString("cancel"))
		return cancel
	}, nil, nil)
	return cancel
}

// BashResult is what a user_bash handler returned in place of running the command.
type BashResult struct {
	Output   string
	ExitCode int
}

// UserBash runs the user_bash handlers for a !command: ev = {command, exclude_from_context,
// cwd}. A handler that returns {result = {output, exit_code}} answers instead of the shell
// (pi's result); the first one wins.
func (r *Runtime) UserBash(ctx context.Context, command string, exclude bool, cwd string) (res BashResult, handled bool) {
	if !r.HasHandlers("user_bash") {
		return res, false
	}
	r.chain(ctx, "user_bash", false, func(v *vm) []lua.LValue {
		return []lua.LValue{v.toLua(map[string]any{"command": command, "exclude_from_context": exclude, "cwd": cwd})}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		rt, ok := t.RawGetString("result").(*lua.LTable)
		if !ok {
			return false
		}
		out, _ := rt.RawGetString("output").(lua.LString)
		code, _ := rt.RawGetString("exit_code").(lua.LNumber)
		res, handled = BashResult{Output: string(out), ExitCode: int(code)}, true
		return true
	}, nil, nil)
	return res, handled
}
