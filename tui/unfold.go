package tui

// unfold.go is what Ctrl+O and Ctrl+T do for a box that has already scrolled into the
// terminal's history, which pi never redraws: the newest such box with output (or thinking, or
// an attached file's text) folded away is printed again below, unfolded, so the key does what
// its hint promised.

import (
	"pi/provider"
	"pi/tui/theme"
)

// noteFolded remembers e if it goes to the scrollback with something folded away.
func (a *App) noteFolded(e entry) {
	switch v := e.(type) {
	case *toolView:
		if _, hidden := v.preview(); hidden > 0 && !a.expandTools {
			a.foldedTool = v
		}
	case *userView:
		if v.hasFolded() {
			a.foldedTool = v
		}
	case *assistantView:
		if !a.showThinking && v.hasThinking() {
			a.foldedThinking = v
		}
	}
}

// unfoldAgain prints the remembered box again, unfolded, and reports whether there was one.
func (a *App) unfoldAgain(tools bool) bool {
	var e entry
	var what string
	if tools && a.expandTools && a.foldedTool != nil {
		e, what, a.foldedTool = a.foldedTool, "the last folded tool box again, expanded", nil
		if _, ok := e.(*userView); ok {
			what = "the last message again, with its attached files' text"
		}
	} else if !tools && a.showThinking && a.foldedThinking != nil {
		e, what, a.foldedThinking = a.foldedThinking, "the last reply with its thinking shown", nil
	} else {
		return false
	}
	a.add(&reprintView{th: a.theme, note: what, e: e})
	return true
}

// reprintView is a box printed again below the point it scrolled up from.
type reprintView struct {
	th   *theme.Theme
	note string
	e    entry
}

func (r *reprintView) final() bool { return true }

func (r *reprintView) Render(width int) []string {
	return append([]string{paint(r.th.Muted, Truncate("↓ "+r.note, width, "…"))}, r.e.Render(width)...)
}

// hasThinking reports whether the reply has a thinking block to show.
func (a *assistantView) hasThinking() bool {
	for _, b := range a.msg.Content {
		if b.Type == provider.BlockThinking && (b.Thinking != "" || b.Redacted) {
			return true
		}
	}
	return false
}
