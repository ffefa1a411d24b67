package lua

// emit.go is pi.emit: an event one script raises for the others, such as the bundled
// checkpoints script's before_restore (which a handler may cancel) and restore.

import (
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// scriptEvents are the events scripts raise with pi.emit; pi raises none of them itself.
func scriptEvents() []string { return []string{"before_restore", "restore"} }

// emitFn is pi.emit(event, payload) → {cancel = bool, reason?}: it calls the event's handlers
// in order, each with payload; the first that returns {cancel = true} stops the rest. A
// handler that raises is a notice and does not cancel.
func (v *vm) emitFn(L *lua.LState) int {
	event := L.CheckString(1)
	payload := L.OptTable(2, L.NewTable())
	if !slices.Contains(scriptEvents(), event) {
		L.ArgError(1, fmt.Sprintf("pi.emit raises only the scripts' events (%v), not %q", scriptEvents(), event))
	}
	out := L.NewTable()
	out.RawSetString("cancel", lua.LFalse)
	for _, h := range slices.Clone(v.handlers[event]) {
		if err := L.CallByParam(lua.P{Fn: h.fn, NRet: 1, Protect: true}, payload); err != nil {
			v.r.notify("error", "lua: %s handler (%s) failed: %s", event, h.script, cleanError(err))
			continue
		}
		ret := L.Get(-1)
		L.Pop(1)
		if t, ok := ret.(*lua.LTable); ok && lua.LVAsBool(t.RawGetString("cancel")) {
			out.RawSetString("cancel", lua.LTrue)
			out.RawSetString("reason", t.RawGetString("reason"))
			out.RawSetString("script", lua.LString(h.script))
			break
		}
	}
	L.Push(out)
	return 1
}
