package lua

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// sendMessage is pi.send_message{content, custom_type?, display?, details?}, {deliver_as?,
// trigger_turn?}: a script's message for the model. deliver_as "steer" or "follow_up" queues it
// as pi.send_user_message does; trigger_turn without deliver_as sends it now (or after the
// run); "next_turn", and no option at all, keep it for the user's next prompt, in front of
// which it goes. custom_type, display and details are accepted for pi's scripts: the message
// reaches the model as text of a user message, and the transcript shows it as such.
func (v *vm) sendMessage(L *lua.LState) int {
	msg := L.CheckTable(1)
	opts := L.OptTable(2, L.NewTable())
	text, err := messageText(msg.RawGetString("content"))
	if err != nil {
		L.ArgError(1, err.Error())
	}
	as := optString(L, opts, "deliver_as")
	trigger := lua.LVAsBool(opts.RawGetString("trigger_turn"))
	switch {
	case as == "steer" || as == "follow_up":
		return v.ok(L, v.r.opts.Host.sendUserMessage(text, as))
	case as == "" && trigger:
		return v.ok(L, v.r.opts.Host.sendUserMessage(text, ""))
	case as == "" || as == "next_turn":
		v.r.mu.Lock()
		v.r.nextTurn = append(v.r.nextTurn, text)
		v.r.mu.Unlock()
		L.Push(lua.LTrue)
		return 1
	}
	L.ArgError(2, fmt.Sprintf(`deliver_as must be "steer", "follow_up" or "next_turn", got %q`, as))
	return 0
}

// messageText reads content as a string or a list of text blocks.
func messageText(x lua.LValue) (string, error) {
	switch c := x.(type) {
	case lua.LString:
		return string(c), nil
	case *lua.LTable:
		var parts []string
		for i := 1; i <= c.Len(); i++ {
			b, ok := c.RawGetInt(i).(*lua.LTable)
			if !ok {
				return "", fmt.Errorf("content[%d]: want a block table", i)
			}
			if t, ok := b.RawGetString("text").(lua.LString); ok {
				parts = append(parts, string(t))
			}
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("content: want a string or a list of text blocks, got %s", x.Type())
}

// withNextTurn puts the messages kept for the next prompt in front of text, and forgets them.
func (r *Runtime) withNextTurn(text string) string {
	r.mu.Lock()
	pending := r.nextTurn
	r.nextTurn = nil
	r.mu.Unlock()
	if len(pending) == 0 {
		return text
	}
	return strings.Join(append(pending, text), "\n\n")
}
