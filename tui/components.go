package tui

import (
	"fmt"
	"strings"
	"time"

	"pi/provider"
)

// Component is anything that draws itself as lines: every line fits width cells and closes
// its styles.
type Component interface {
	Render(width int) []string
}

// entry is a transcript item. It stays in the live region, re-rendered each frame, until it is
// final; then it is written to scrollback once and dropped.
type entry interface {
	Component
	final() bool
}

// freezer is implemented by entries that must keep their first n lines stable once those
// lines have spilled into scrollback (see the package doc).
type freezer interface {
	Freeze(n int)
}

// userView is a user message.
type userView struct{ text string }

func (u *userView) final() bool { return true }

func (u *userView) Render(width int) []string {
	lines := Wrap(sanitize(u.text), max(width-2, 1))
	for i, l := range lines {
		prefix := "  "
		if i == 0 {
			prefix = paint(sAccent+sBold, "› ")
		}
		lines[i] = prefix + paint(sBold, l)
	}
	return lines
}

// Notice levels for Notify.
const (
	LevelInfo    = "info"
	LevelWarning = "warning"
	LevelError   = "error"
)

// noticeView is a one-off message: a notice from a script, an error, a hint.
type noticeView struct{ level, text string }

func (n *noticeView) final() bool { return true }

func (n *noticeView) Render(width int) []string {
	icon, style := "• ", sMuted
	switch n.level {
	case LevelWarning:
		icon, style = "! ", sYellow
	case LevelError:
		icon, style = "✗ ", sRed
	}
	lines := Wrap(sanitize(n.text), max(width-2, 1))
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = icon
		}
		lines[i] = paint(style, p+l)
	}
	return lines
}

// retryView counts down to an automatic retry; it is final once the retry has happened.
type retryView struct {
	attempt, maxAttempts int
	until                time.Time
	err                  string
	done                 bool
	now                  func() time.Time
}

func (r *retryView) final() bool { return r.done }

func (r *retryView) Render(width int) []string {
	left := max(0, r.until.Sub(r.now()).Round(time.Second))
	msg := fmt.Sprintf("⟳ retrying in %s (attempt %d", left, r.attempt)
	if r.done {
		msg = fmt.Sprintf("⟳ retried (attempt %d", r.attempt)
	}
	if r.maxAttempts > 0 {
		msg += fmt.Sprintf("/%d", r.maxAttempts)
	}
	msg += "): " + sanitize(r.err)
	return []string{Truncate(paint(sYellow, msg), width, "…")}
}

// assistantView is an assistant reply: text blocks as markdown, thinking blocks dimmed and
// collapsible, and the error of a failed reply. Tool calls get their own toolView entries.
type assistantView struct {
	msg      provider.Message
	md       map[int]*Markdown // by content index
	done     bool
	thinking *bool // shared with the App: Ctrl+T toggles every live reply
	spans    []mdSpan

	think map[int]*paraCache // wrapped thinking, by content index
}

type mdSpan struct {
	start int
	md    *Markdown
}

func newAssistantView(thinking *bool) *assistantView {
	return &assistantView{md: map[int]*Markdown{}, think: map[int]*paraCache{}, thinking: thinking}
}

func (a *assistantView) final() bool { return a.done }

func (a *assistantView) set(m *provider.Message) {
	a.msg = m.Clone()
	for i, b := range a.msg.Content {
		if b.Type == provider.BlockText {
			md := a.md[i]
			if md == nil {
				md = NewMarkdown()
				a.md[i] = md
			}
			md.SetText(b.Text)
		}
	}
}

func (a *assistantView) Render(width int) []string {
	var out []string
	a.spans = a.spans[:0]
	for i, b := range a.msg.Content {
		var lines []string
		switch b.Type {
		case provider.BlockText:
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			if len(out) > 0 {
				out = append(out, "")
			}
			a.spans = append(a.spans, mdSpan{start: len(out), md: a.md[i]})
			lines = a.md[i].Render(width)
		case provider.BlockThinking:
			lines = a.renderThinking(i, b, width)
			if len(lines) > 0 && len(out) > 0 {
				out = append(out, "")
			}
		}
		out = append(out, lines...)
	}
	return append(out, a.renderStop(width)...)
}

func (a *assistantView) renderThinking(i int, b provider.Block, width int) []string {
	text := strings.TrimSpace(b.Thinking)
	if text == "" && !b.Redacted {
		return nil
	}
	if !*a.thinking {
		return []string{paint(sThink, Truncate("∴ thinking… (ctrl+t to show)", width, "…"))}
	}
	c := a.think[i]
	if c == nil {
		c = &paraCache{}
		a.think[i] = c
	}
	return c.render(text, width)
}

// paraCache wraps text paragraph by paragraph and keeps the result for paragraphs that did
// not change, so a long streamed thinking block costs only its last paragraph per frame.
type paraCache struct {
	width int
	paras []string
	lines [][]string
}

func (c *paraCache) render(text string, width int) []string {
	if width != c.width {
		*c = paraCache{width: width}
	}
	var out []string
	for i, p := range strings.Split(text, "\n") {
		if i >= len(c.paras) || c.paras[i] != p {
			lines := Wrap(sanitize(p), max(width-2, 1))
			for k, l := range lines {
				lines[k] = paint(sThink, "│ "+l)
			}
			c.paras = append(c.paras[:i], p)
			c.lines = append(c.lines[:i], lines)
		}
		out = append(out, c.lines[i]...)
	}
	return out
}

func (a *assistantView) renderStop(width int) []string {
	switch a.msg.StopReason {
	case provider.StopError:
		n := noticeView{LevelError, "Error: " + a.msg.ErrorMessage}
		return n.Render(width)
	case provider.StopAborted:
		return []string{paint(sMuted, "(aborted)")}
	case provider.StopLength:
		return []string{paint(sYellow, "(reply cut at the output-token limit)")}
	}
	return nil
}

// Freeze passes the spilled line count on to the markdown blocks it covers.
func (a *assistantView) Freeze(n int) {
	for _, s := range a.spans {
		if s.start < n {
			s.md.Freeze(n - s.start)
		}
	}
}
