package remote

import (
	"context"
	"encoding/json"
	"time"

	"pi/rpcwire"
	"pi/tui"
)

// extui.go shows the served session's scripts' extension UI as the local terminal UI shows
// it: questions (confirm, select, input, editor) as the same dialogs, whose answers go back
// through pi_rpc as extension_ui_response; notices, statuses, widgets, the title and editor
// text as they are. When another client answers first (or the question times out), the
// server says the question is closed and the dialog goes.

// extensionUI handles one extension_ui_request line.
func (v *view) extensionUI(line string) {
	var r rpcwire.UIRequest
	if json.Unmarshal([]byte(line), &r) != nil {
		return
	}
	switch r.Method {
	case "confirm", "select", "input", "editor":
	case "notify":
		level := r.NotifyType
		if level == "" {
			level = tui.LevelInfo
		}
		v.ui.Notify(level, r.Message)
		return
	default:
		v.ui.ExtensionUI(r.Method, r.Fields())
		return
	}
	ctx, done := v.dialog(r.ID, time.Duration(r.Timeout*float64(time.Millisecond)))
	defer done()
	answer := v.ask(ctx, &r)
	if ctx.Err() != nil {
		return // settled elsewhere (another client, a timeout), or the screen is closing
	}
	answer.Type, answer.ID = "extension_ui_response", r.ID
	if b, err := json.Marshal(answer); err == nil {
		v.c.RPC(v.ctx, v.session(), b)
	}
}

// ask opens the dialog a question asks for and returns the answer.
func (v *view) ask(ctx context.Context, r *rpcwire.UIRequest) rpcwire.UIResponse {
	switch r.Method {
	case "confirm":
		yes, err := v.ui.Confirm(ctx, r.Title, r.Message)
		return answered(rpcwire.UIResponse{Confirmed: &yes}, err)
	case "select":
		i, err := v.ui.Select(ctx, r.Title, r.Options)
		if err != nil || i < 0 || i >= len(r.Options) {
			return answered(rpcwire.UIResponse{}, tui.ErrCancelled)
		}
		return rpcwire.UIResponse{Value: &r.Options[i]}
	case "input":
		title := r.Title
		if r.Placeholder != "" {
			title += " (" + r.Placeholder + ")"
		}
		text, err := v.ui.Input(ctx, title)
		return answered(rpcwire.UIResponse{Value: &text}, err)
	}
	text, ok, err := v.ui.Editor(ctx, r.Title, r.Prefill)
	if !ok && err == nil {
		err = tui.ErrCancelled
	}
	return answered(rpcwire.UIResponse{Value: &text}, err)
}

// answered is the answer, or cancelled when the dialog was dismissed or could not be shown.
func answered(answer rpcwire.UIResponse, err error) rpcwire.UIResponse {
	if err != nil { // tui.ErrCancelled, or the screen is closing
		return rpcwire.UIResponse{Cancelled: true}
	}
	return answer
}

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
