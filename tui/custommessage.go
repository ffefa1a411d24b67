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
	rendered []string // nil: the default rendering
	md       *Markdown
	pending  bool // the renderer has not answered yet: nothing to show
}

func (c *customView) final() bool { return !c.pending }

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
// script's renderer: it runs on a goroutine of its own (it waits for the scripts), the message
// shows once it returns, and nil lines from it mean the default: the type as a label and the
// text as markdown.
func (a *App) AddCustomMessage(typ, text string, render func() []string) {
	a.mu.Lock()
	defer a.unlock()
	a.add(a.customEntry(typ, text, render))
}

// customEntry is AddCustomMessage's entry, for the caller to add (the lock held).
func (a *App) customEntry(typ, text string, render func() []string) *customView {
	v := &customView{th: a.theme, typ: typ, md: NewMarkdown(a.theme), pending: render != nil}
	v.md.SetText(text)
	if render != nil {
		go func() {
			lines := render()
			a.mu.Lock()
			defer a.unlock()
			v.rendered, v.pending = lines, false
			a.requestRender()
		}()
	}
	return v
}
