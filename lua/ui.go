package lua

import (
	"context"
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// The screen's extension slots: a footer status per key, widgets above or below the editor,
// the terminal's title and the editor's text. Each goes to Session.UI as the extension UI
// sub-protocol names it, so the terminal UI and an RPC client get the same requests.

func uiFuncs(v *vm) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"set_status": v.setStatus, "set_widget": v.setWidget, "set_title": v.setTitle,
		"set_editor_text": v.setEditorText, "editor": v.editorFn,
	}
}

func (v *vm) ui(method string, fields map[string]any) {
	v.r.remember(method, fields)
	if s := v.sess(); s != nil {
		s.UI(method, fields)
	}
}

// UIRequest is one request of the extension UI sub-protocol.
type UIRequest struct {
	Method string
	Fields map[string]any
}

// remember keeps the screen's slots as the scripts left them, so that a user interface that
// attaches later (the TUI once it is up, an RPC client) can be brought up to date.
func (r *Runtime) remember(method string, fields map[string]any) {
	var key string
	set := true
	switch method {
	case "setStatus":
		key, set = method+" "+fmt.Sprint(fields["statusKey"]), fields["statusText"] != nil
	case "setWidget":
		key, set = method+" "+fmt.Sprint(fields["widgetKey"]), fields["widgetLines"] != nil
	case "setTitle":
		key = method
	default:
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.screen = slices.DeleteFunc(r.screen, func(s screenSlot) bool { return s.key == key })
	if set {
		r.screen = append(r.screen, screenSlot{key, UIRequest{method, fields}})
	}
}

type screenSlot struct {
	key string
	req UIRequest
}

// Screen returns the requests that draw the scripts' statuses, widgets and title as they are
// now, oldest first.
func (r *Runtime) Screen() []UIRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]UIRequest, len(r.screen))
	for i, s := range r.screen {
		out[i] = s.req
	}
	return out
}

// setStatus is pi.set_status(key, text): text (nil or "" clears it) in the footer under key.
func (v *vm) setStatus(L *lua.LState) int {
	key := L.CheckString(1)
	f := map[string]any{"statusKey": key}
	if text := L.OptString(2, ""); text != "" {
		f["statusText"] = text
	}
	v.ui("setStatus", f)
	return 0
}

// setWidget is pi.set_widget(key, lines, {placement = "above"|"below"}); nil lines remove it.
func (v *vm) setWidget(L *lua.LState) int {
	key := L.CheckString(1)
	f := map[string]any{"widgetKey": key}
	switch x := L.Get(2).(type) {
	case *lua.LNilType:
	case lua.LString:
		f["widgetLines"] = []string{string(x)}
	case *lua.LTable:
		lines, err := stringList("lines", x)
		if err != nil {
			L.ArgError(2, err.Error())
		}
		f["widgetLines"] = lines
	default:
		L.ArgError(2, "want a list of lines, a string or nil, got "+x.Type().String())
	}
	opts := L.OptTable(3, L.NewTable())
	switch p := optString(L, opts, "placement"); p {
	case "", "above", "aboveEditor":
		f["widgetPlacement"] = "aboveEditor"
	case "below", "belowEditor":
		f["widgetPlacement"] = "belowEditor"
	default:
		L.ArgError(3, fmt.Sprintf(`placement must be "above" or "below", got %q`, p))
	}
	v.ui("setWidget", f)
	return 0
}

func (v *vm) setTitle(L *lua.LState) int {
	v.ui("setTitle", map[string]any{"title": L.CheckString(1)})
	return 0
}

func (v *vm) setEditorText(L *lua.LState) int {
	v.ui("set_editor_text", map[string]any{"text": L.CheckString(1)})
	return 0
}

// editorFn is pi.editor(title, prefill): the text, or nil when dismissed or without a UI.
func (v *vm) editorFn(L *lua.LState) int {
	title, prefill := L.CheckString(1), L.OptString(2, "")
	s := v.sess()
	if s == nil {
		L.Push(lua.LNil)
		return 1
	}
	return v.awaitUser(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		text, ok, err := s.Editor(ctx, title, prefill)
		return maybeString(text, ok, err, "pi.editor")
	})
}
