package tui

import (
	"context"
	"errors"
	"pi/tui/theme"
	"sort"
	"strings"
)

// extSlots are what scripts put on the screen: footer statuses by key and widgets (lines
// above or below the editor) by key, each group drawn in key order.
type extSlots struct {
	status map[string]string
	above  map[string][]string
	below  map[string][]string
}

// maxWidgetLines caps one widget, so that a script cannot push the editor off the screen.
const maxWidgetLines = 10

// ExtensionUI applies one fire-and-forget request of the extension UI sub-protocol, with pi's
// method and field names: setStatus {statusKey, statusText}, setWidget {widgetKey,
// widgetLines, widgetPlacement aboveEditor|belowEditor}, setTitle {title}, set_editor_text
// {text}. A missing text or lines clears the slot; unknown methods are ignored.
func (a *App) ExtensionUI(method string, f map[string]any) {
	str := func(k string) string { s, _ := f[k].(string); return s }
	if method == "set_editor_text" {
		a.SetEditorText(str("text"))
		return
	}
	if method == "setTitle" {
		a.SetTitle(str("title"))
		return
	}
	a.mu.Lock()
	defer a.unlock()
	switch method {
	case "setStatus":
		a.ext.status = setSlot(a.ext.status, str("statusKey"), oneLine(str("statusText")), str("statusText") != "")
	case "setWidget":
		lines, _ := f["widgetLines"].([]string)
		if len(lines) > maxWidgetLines {
			lines = append(lines[:maxWidgetLines:maxWidgetLines], "… "+moreLines(len(lines)-maxWidgetLines))
		}
		key := str("widgetKey")
		a.ext.above = setSlot(a.ext.above, key, nil, false)
		a.ext.below = setSlot(a.ext.below, key, nil, false)
		if str("widgetPlacement") == "belowEditor" {
			a.ext.below = setSlot(a.ext.below, key, lines, lines != nil)
		} else {
			a.ext.above = setSlot(a.ext.above, key, lines, lines != nil)
		}
	}
	a.requestRender()
}

func setSlot[V any](m map[string]V, key string, v V, set bool) map[string]V {
	if !set {
		delete(m, key)
		return m
	}
	if m == nil {
		m = map[string]V{}
	}
	m[key] = v
	return m
}

func sortedSlotKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// widgetLines are the lines of the widgets in m, cut to width.
func widgetLines(m map[string][]string, width int) []string {
	var out []string
	for _, k := range sortedSlotKeys(m) {
		for _, l := range m[k] {
			out = append(out, Truncate(sanitize(l), width, "…"))
		}
	}
	return out
}

// statusSegments is the footer line of the scripts' statuses, in key order, or none.
func statusSegments(th *theme.Theme, m map[string]string, width int) []string {
	if len(m) == 0 {
		return nil
	}
	var parts []string
	for _, k := range sortedSlotKeys(m) {
		parts = append(parts, m[k])
	}
	return []string{paint(th.Muted, Truncate(strings.Join(parts, " · "), width, "…"))}
}

// SetTitle sets the terminal window's title (OSC 0); terminals that do not support it ignore it.
func (a *App) SetTitle(title string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	a.waitWrite() // never inside a frame
	a.term.Write([]byte("\x1b]0;" + strings.Map(noControl, title) + "\a"))
}

func noControl(r rune) rune {
	if r < 0x20 || r == 0x7f {
		return -1
	}
	return r
}

// Editor asks for a longer text in the editor's place, starting from prefill: several lines
// (shift+enter or ctrl+j makes a new line, enter submits, ctrl+g edits it in $VISUAL or
// $EDITOR); ok is false when escape dismissed it.
func (a *App) Editor(ctx context.Context, title, prefill string) (text string, ok bool, err error) {
	ed := NewEditor()
	ed.SetText(prefill)
	r, err := a.ask(ctx, &modal{kind: "editor", title: title, input: ed})
	if errors.Is(err, ErrCancelled) {
		return "", false, nil
	}
	return r.text, err == nil, err
}
