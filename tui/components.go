package tui

import (
	"fmt"
	"strings"
	"time"

	"pi/internal/atfile"
	"pi/provider"
	"pi/tui/theme"
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

// tailRenderer is implemented by entries that can lay out only their lines from index from
// on, without building the ones before: the part of a long reply already in scrollback costs
// nothing per frame. It appends Render(width)[from:] to dst, and total is
// len(Render(width)).
type tailRenderer interface {
	renderTail(dst []string, width, from int) (out []string, total int)
}

// freezer is implemented by entries that must keep their first n lines stable once those
// lines have spilled into scrollback (see the package doc).
type freezer interface {
	Freeze(n int)
}

// themed is implemented by entries that take another theme while they are in the live region
// (App.SetTheme): they draw their next lines in it.
type themed interface {
	setTheme(th *theme.Theme)
}

// userView is a user message. The files its @words attached show as a line each under what
// was typed, "attached main.go (2.1 KB)", and their text only while tool output is expanded
// (Ctrl+O): the message itself holds every byte.
type userView struct {
	th       *theme.Theme
	text     string // as typed, without the files' blocks
	files    []atfile.File
	expanded *bool // the App's expandTools
}

func newUserView(th *theme.Theme, text string, expanded *bool) *userView {
	return &userView{th: th, text: strings.TrimSpace(atfile.Typed(text)), files: atfile.Files(text), expanded: expanded}
}

func (u *userView) final() bool { return true }

func (u *userView) setTheme(th *theme.Theme) { u.th = th }

func (u *userView) Render(width int) []string {
	lines := Wrap(sanitize(u.text), max(width-2, 1))
	for i, l := range lines {
		prefix := "  "
		if i == 0 {
			prefix = paint(u.th.Accent+sBold, "› ")
		}
		lines[i] = prefix + paint(sBold, l)
	}
	for _, f := range u.files {
		lines = append(lines, u.fileLines(f, width)...)
	}
	return lines
}

// fileLines are an attached file's line and, expanded, its text.
func (u *userView) fileLines(f atfile.File, width int) []string {
	what := "attached " + f.Name() + " (" + f.Size() + ")"
	switch {
	case f.Note:
		what = "attached " + f.Name() + " " + f.Body
	case f.Cut:
		what = "attached " + f.Name()
	case !*u.expanded:
		what += " · ctrl+o shows it"
	}
	out := []string{paint(u.th.Muted, Truncate("  "+what, width, "…"))}
	if f.Note || !*u.expanded {
		return out
	}
	for _, l := range Wrap(sanitize(f.Body), max(width-4, 1)) {
		out = append(out, paint(u.th.Muted, "  │ ")+l)
	}
	return out
}

// hasFolded says the message has a file whose text is not shown.
func (u *userView) hasFolded() bool {
	for _, f := range u.files {
		if !f.Note && !f.Cut && !*u.expanded {
			return true
		}
	}
	return false
}

// Notice levels for Notify.
const (
	LevelInfo    = "info"
	LevelWarning = "warning"
	LevelError   = "error"
)

// noticeView is a one-off message: a notice from a script, an error, a hint.
type noticeView struct {
	th          *theme.Theme
	level, text string
}

func (n *noticeView) final() bool { return true }

func (n *noticeView) setTheme(th *theme.Theme) { n.th = th }

func (n *noticeView) Render(width int) []string {
	icon, style := "• ", n.th.Muted
	switch n.level {
	case LevelWarning:
		icon, style = "! ", n.th.Warning
	case LevelError:
		icon, style = "✗ ", n.th.Error
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
	th                   *theme.Theme
	attempt, maxAttempts int
	until                time.Time
	err                  string
	done                 bool
	now                  func() time.Time
}

func (r *retryView) final() bool { return r.done }

func (r *retryView) setTheme(th *theme.Theme) { r.th = th }

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
	return []string{Truncate(paint(r.th.Warning, msg), width, "…")}
}

// assistantView is an assistant reply: text blocks as markdown, thinking blocks dimmed and
// collapsible, and the error of a failed reply. Tool calls get their own toolView entries.
type assistantView struct {
	th       *theme.Theme
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

func newAssistantView(th *theme.Theme, thinking *bool) *assistantView {
	return &assistantView{th: th, md: map[int]*Markdown{}, think: map[int]*paraCache{}, thinking: thinking}
}

func (a *assistantView) final() bool { return a.done }

// setTheme lays the reply out again in th: the markdown and thinking caches hold styled lines.
func (a *assistantView) setTheme(th *theme.Theme) {
	a.th = th
	for _, md := range a.md {
		md.SetTheme(th)
	}
	clear(a.think)
}

func (a *assistantView) set(m *provider.Message) {
	a.msg = m.Clone()
	for i, b := range a.msg.Content {
		if b.Type == provider.BlockText {
			md := a.md[i]
			if md == nil {
				md = NewMarkdown(a.th)
				a.md[i] = md
			}
			md.SetText(b.Text)
		}
	}
}

func (a *assistantView) Render(width int) []string {
	lines, _ := a.renderTail(nil, width, 0)
	return lines
}

func (a *assistantView) renderTail(out []string, width, from int) ([]string, int) {
	n := 0 // lines so far
	add := func(lines ...string) {
		if k := from - n; k < len(lines) {
			out = append(out, lines[max(k, 0):]...)
		}
		n += len(lines)
	}
	a.spans = a.spans[:0]
	for i, b := range a.msg.Content {
		switch b.Type {
		case provider.BlockText:
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			if n > 0 {
				add("")
			}
			a.spans = append(a.spans, mdSpan{start: n, md: a.md[i]})
			add(a.md[i].Lines(width)...)
		case provider.BlockThinking:
			lines := a.renderThinking(i, b, width)
			if len(lines) > 0 && n > 0 {
				add("")
			}
			add(lines...)
		}
	}
	add(a.renderStop(width)...)
	return out, n
}

func (a *assistantView) renderThinking(i int, b provider.Block, width int) []string {
	text := strings.TrimSpace(b.Thinking)
	if text == "" && !b.Redacted {
		return nil
	}
	if !*a.thinking {
		return []string{paint(a.th.ThinkingText+sItalic, Truncate("∴ thinking… (ctrl+t to show)", width, "…"))}
	}
	c := a.think[i]
	if c == nil {
		c = &paraCache{style: a.th.ThinkingText + sItalic}
		a.think[i] = c
	}
	return c.render(text, width)
}

// paraCache wraps text paragraph by paragraph and keeps the lines of the paragraphs before
// the last one, which a stream no longer changes, so a long streamed thinking block costs
// only its last paragraph per frame. The lines it returns must not be changed.
type paraCache struct {
	style string // of every line
	width int
	text  string   // as last laid out
	last  int      // offset in text where its last paragraph starts
	lines []string // the lines, those of the paragraphs before last first
	kept  int      // how many lines those are
}

func (c *paraCache) render(text string, width int) []string {
	if width != c.width || !strings.HasPrefix(text, c.text[:c.last]) {
		*c = paraCache{style: c.style, width: width, lines: c.lines[:0]}
	}
	c.lines = c.lines[:c.kept]
	for {
		nl := strings.IndexByte(text[c.last:], '\n')
		end := len(text)
		if nl >= 0 {
			end = c.last + nl
		}
		for _, l := range Wrap(sanitize(text[c.last:end]), max(width-2, 1)) {
			c.lines = append(c.lines, paint(c.style, "│ "+l))
		}
		if nl < 0 {
			break
		}
		c.last, c.kept = end+1, len(c.lines)
	}
	c.text = text
	return c.lines
}

func (a *assistantView) renderStop(width int) []string {
	switch a.msg.StopReason {
	case provider.StopError:
		n := noticeView{a.th, LevelError, "Error: " + a.msg.ErrorMessage}
		return n.Render(width)
	case provider.StopAborted:
		return []string{paint(a.th.Muted, "(aborted)")}
	case provider.StopLength:
		return []string{paint(a.th.Warning, "(reply cut at the output-token limit)")}
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
