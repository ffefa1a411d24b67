package remote

import (
	"context"
	"encoding/json"
	"time"

	"pi/extui"
	"pi/tui"
)

// extui.go shows the served session's scripts' extension UI as the local terminal UI shows
// it: questions (confirm, select, input, editor) as the same dialogs, whose answers go back
// through pi_rpc as extension_ui_response; notices, statuses, widgets, the title and editor
// text as they are. When another client answers first (or the question times out), the
// server says the question is closed and the dialog goes.

// extensionUI handles one extension_ui_request line.
func (v *view) extensionUI(line string) {
	var f map[string]any
	if json.Unmarshal([]byte(line), &f) != nil {
		return
	}
	switch method := str(f["method"]); method {
	case "confirm", "select", "input", "editor":
	case "notify":
		level := str(f["notifyType"])
		if level == "" {
			level = tui.LevelInfo
		}
		v.ui.Notify(level, str(f["message"]))
		return
	default:
		if lines := asList(f["widgetLines"]); lines != nil {
			out := make([]string, len(lines))
			for i, l := range lines {
				out[i] = str(l)
			}
			f["widgetLines"] = out
		}
		v.ui.ExtensionUI(method, f)
		return
	}
	id, _ := f["id"].(string)
	ctx, done := v.dialog(id, extui.Timeout(f["timeout"]))
	defer done()
	answer := v.ask(ctx, f)
	if ctx.Err() != nil {
		return // settled elsewhere (another client, a timeout), or the screen is closing
	}
	answer["type"], answer["id"] = "extension_ui_response", id
	if b, err := json.Marshal(answer); err == nil {
		v.c.RPC(v.ctx, v.session(), b)
	}
}

// ask opens the dialog a question asks for and returns the answer's fields.
func (v *view) ask(ctx context.Context, f map[string]any) map[string]any {
	title := str(f["title"])
	switch str(f["method"]) {
	case "confirm":
		yes, err := v.ui.Confirm(ctx, title, str(f["message"]))
		return answered(map[string]any{"confirmed": yes}, err)
	case "select":
		var options []string
		for _, o := range asList(f["options"]) {
			options = append(options, str(o))
		}
		i, err := v.ui.Select(ctx, title, options)
		if err != nil || i < 0 || i >= len(options) {
			return answered(nil, err)
		}
		return map[string]any{"value": options[i]}
	case "input":
		if p := str(f["placeholder"]); p != "" {
			title += " (" + p + ")"
		}
		text, err := v.ui.Input(ctx, title)
		return answered(map[string]any{"value": text}, err)
	}
	text, ok, err := v.ui.Editor(ctx, title, str(f["prefill"]))
	if !ok && err == nil {
		err = tui.ErrCancelled
	}
	return answered(map[string]any{"value": text}, err)
}

// answered is the answer, or cancelled when the dialog was dismissed or could not be shown.
func answered(answer map[string]any, err error) map[string]any {
	if err != nil || answer == nil { // tui.ErrCancelled, or the screen is closing
		return map[string]any{"cancelled": true}
	}
	return answer
}

func asList(v any) []any { l, _ := v.([]any); return l }

// dialog is the context of the dialog for question id: it ends when the question is settled
// (closeDialog), when its timeout passes, or with the screen.
func (v *view) dialog(id string, timeout time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(v.ctx)
	if timeout > 0 {
		cancel()
		ctx, cancel = context.WithTimeout(v.ctx, timeout)
	}
	v.mu.Lock()
	if v.dialogs == nil {
		v.dialogs = map[string]context.CancelFunc{}
	}
	v.dialogs[id] = cancel
	v.mu.Unlock()
	return ctx, func() {
		v.mu.Lock()
		delete(v.dialogs, id)
		v.mu.Unlock()
		cancel()
	}
}

// closeDialog puts away the dialog of a question that has been settled.
func (v *view) closeDialog(id string) {
	v.mu.Lock()
	cancel := v.dialogs[id]
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
