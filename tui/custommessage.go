package tui

import (
	"pi/tui/theme"
)

// customView draws a script's custom message (pi.send_message with display): the lines the
// script's message renderer returned, or by default the message type as a bold label and its
// text as markdown below it, as pi draws them.
type customView struct {
	th       *theme.Theme
	typ      string
	render   func(expanded bool) []string // the script's renderer, or nil
	rendered []string                     // nil: the default rendering
	md       *Markdown
	pending  bool // the renderer has not answered yet: nothing to show
	redraw   bool // it is drawing the lines again (ctrl+o): the old ones show meanwhile
	expanded bool // what the lines were asked for
}

func (c *customView) final() bool { return !c.pending && !c.redraw }

func (c *customView) setTheme(th *theme.Theme) {
	c.th = th
	c.md.SetTheme(th)
}

func (c *customView) Render(width int) []string {
	if c.pending {
		return nil
	}
	if c.rendered != nil {
		var out []string
		for _, l := range c.rendered {
			out = append(out, Wrap(sanitize(l), max(width, 1))...)
		}
		return out
	}
	label := paint(c.th.Accent+sBold, "["+sanitize(c.typ)+"]")
	return append([]string{label}, c.md.Render(width)...)
}

// AddCustomMessage shows a script's custom message of type typ. render, when set, is the
// script's renderer, asked with whether tool output is expanded (ctrl+o): it runs on a
// goroutine of its own (it waits for the scripts), the message shows once it returns, and nil
// lines from it mean the default: the type as a label and the text as markdown.
func (a *App) AddCustomMessage(typ, text string, render func(expanded bool) []string) {
	a.mu.Lock()
	defer a.unlock()
	a.add(a.customEntry(typ, text, render))
}

// customEntry is AddCustomMessage's entry, for the caller to add (the lock held).
func (a *App) customEntry(typ, text string, render func(expanded bool) []string) *customView {
	v := &customView{th: a.theme, typ: typ, md: NewMarkdown(a.theme), render: render, pending: render != nil}
	v.md.SetText(text)
	if render != nil {
		a.renderCustom(v)
	}
	return v
}

// renderCustom asks v's renderer for its lines as tool output now is (expanded or not).
// Called with a.mu held.
func (a *App) renderCustom(v *customView) {
	expanded := a.expandTools
	v.expanded = expanded
	go func() {
		lines := v.render(expanded)
		a.mu.Lock()
		defer a.unlock()
		v.rendered, v.pending, v.redraw = lines, false, false
		a.requestRender()
	}()
}

// rerenderCustom draws again the custom messages still on screen (not yet in scrollback)
// whose renderer drew them for the other state of ctrl+o. Called with a.mu held.
func (a *App) rerenderCustom() {
	for _, le := range a.live {
		if v, ok := le.e.(*customView); ok && v.render != nil && !v.pending && !v.redraw && v.expanded != a.expandTools {
			v.redraw = true
			a.renderCustom(v)
		}
	}
}
