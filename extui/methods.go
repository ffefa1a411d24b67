package extui

import (
	"context"
	"encoding/json"
)

// Confirm asks a yes/no question; a dismissed or timed-out question is a no.
func (a *Asker) Confirm(ctx context.Context, title, message string) (bool, error) {
	r, err := a.Ask(ctx, "confirm", map[string]any{"title": title, "message": message})
	yes, _ := r["confirmed"].(bool)
	return yes && r["cancelled"] != true, err
}

// Select asks to pick one of options; ok is false when the client dismissed it.
func (a *Asker) Select(ctx context.Context, title string, options []string) (string, bool, error) {
	r, err := a.Ask(ctx, "select", map[string]any{"title": title, "options": options})
	return value(r, err)
}

// Input asks for a line of text.
func (a *Asker) Input(ctx context.Context, title, placeholder string) (string, bool, error) {
	f := map[string]any{"title": title}
	if placeholder != "" {
		f["placeholder"] = placeholder
	}
	return value(a.Ask(ctx, "input", f))
}

// Editor asks for a longer text, starting from prefill.
func (a *Asker) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	f := map[string]any{"title": title}
	if prefill != "" {
		f["prefill"] = prefill
	}
	return value(a.Ask(ctx, "editor", f))
}

func value(r map[string]any, err error) (string, bool, error) {
	v, ok := r["value"].(string)
	return v, ok && r["cancelled"] != true, err
}

// Notify shows a message; level is info, warning or error.
func (a *Asker) Notify(message, level string) {
	f := map[string]any{"message": message}
	if level != "" {
		f["notifyType"] = level
	}
	a.ExtensionUI("notify", f)
}

// SetStatus sets (or with empty text clears) a status line the client shows under key.
func (a *Asker) SetStatus(key, text string) {
	f := map[string]any{"statusKey": key}
	if text != "" {
		f["statusText"] = text
	}
	a.ExtensionUI("setStatus", f)
}

// ExtensionUI sends one of the requests that expect no answer (setWidget, setTitle, …).
func (a *Asker) ExtensionUI(method string, f map[string]any) {
	a.send(requestLine(NewRequestID(), method, f))
}

// ExtensionError reports a script's failure as pi's extension_error event.
func (a *Asker) ExtensionError(path, event, message string) {
	line, _ := json.Marshal(struct {
		Type string `json:"type"`
		Path string `json:"extensionPath"`
		Ev   string `json:"event"`
		Err  string `json:"error"`
	}{"extension_error", path, event, message})
	a.send(line)
}
