package lua

import (
	"context"

	lua "github.com/yuin/gopher-lua"
)

// moreEvents are the events beyond the agent loop's that pi's extensions see: the session's
// moves (each session_before_* may cancel), thinking changes, the HTTP calls to the model, the
// user's shell commands and the discovery of resources (userevents.go).
func moreEvents() []string {
	return []string{"session_before_switch", "session_before_fork", "session_before_tree", "session_tree",
		"thinking_level_select", "before_provider_request", "after_provider_response", "user_bash", "resources_discover"}
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
