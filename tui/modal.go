package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"

	"pi/tui/theme"
)

// ErrCancelled is returned by Select, Confirm and Input when the user pressed Escape.
var ErrCancelled = errors.New("cancelled")

const modalRows = 10

// editorMinRows is the height pi.editor's text area keeps even when the text is shorter.
const editorMinRows = 5

// modal is a picker, a yes/no question, a one-line input or a multi-line editor shown in
// place of the editor (model picker, session picker, Lua's pi.select / pi.confirm / pi.input
// / pi.editor).
type modal struct {
	kind    string // "select", "confirm", "input", "editor"
	title   string
	message string
	options []string
	filter  string
	shown   []int // indexes of options matching the filter
	sel     int
	input   *Editor
	view    *viewer      // kind "view": a transcript, read-only (transcript.go)
	search  *searchState // a select whose filter is also a search (searchselect.go)
	done    chan modalResult
}

type modalResult struct {
	index int
	text  string
	ok    bool
}

// Select shows a list and returns the index of the option chosen; typing filters the list.
// It blocks until the user answers or ctx ends, so never call it from a Callbacks function
// (they run on the input goroutine): start a goroutine.
func (a *App) Select(ctx context.Context, title string, options []string) (int, error) {
	return a.SelectFrom(ctx, title, options, 0)
}

// SelectFrom is Select with the cursor starting on option start, such as the current entry of
// a long list.
func (a *App) SelectFrom(ctx context.Context, title string, options []string, start int) (int, error) {
	r, err := a.ask(ctx, &modal{kind: "select", title: title, options: options, sel: max(start, 0)})
	return r.index, err
}

// Confirm asks a yes/no question.
func (a *App) Confirm(ctx context.Context, title, message string) (bool, error) {
	r, err := a.ask(ctx, &modal{kind: "confirm", title: title, message: message})
	return err == nil && r.index == 1, err
}

// Input asks for one line (or more, with Shift+Enter) of text.
func (a *App) Input(ctx context.Context, title string) (string, error) {
	r, err := a.ask(ctx, &modal{kind: "input", title: title, input: NewEditor()})
	return r.text, err
}

func (a *App) ask(ctx context.Context, m *modal) (modalResult, error) {
	m.done = make(chan modalResult, 1)
	m.refilter()
	a.mu.Lock()
	if a.modal != nil {
		a.mu.Unlock()
		return modalResult{}, fmt.Errorf("%s %q: another question is open", m.kind, m.title)
	}
	a.modal = m
	a.requestRender()
	a.unlock()
	defer func() {
		a.mu.Lock()
		if a.modal == m {
			a.modal = nil
		}
		a.requestRender()
		a.unlock()
	}()
	select {
	case r := <-m.done:
		if !r.ok {
			return r, ErrCancelled
		}
		return r, nil
	case <-ctx.Done():
		return modalResult{}, fmt.Errorf("%s %q: %w", m.kind, m.title, ctx.Err())
	}
}

func (m *modal) refilter() {
	if m.search != nil {
		m.refilterSearch()
		return
	}
	m.shown = m.shown[:0]
	score := map[int]int{}
	for i, o := range m.options {
		if s, ok := fuzzyScore(o, m.filter); ok {
			m.shown = append(m.shown, i)
			score[i] = s
		}
	}
	if m.filter != "" {
		sort.SliceStable(m.shown, func(i, j int) bool { return score[m.shown[i]] > score[m.shown[j]] })
	}
	m.sel = min(m.sel, max(len(m.shown)-1, 0))
}

func (m *modal) answer(r modalResult) {
	select {
	case m.done <- r:
	default:
	}
}

// key handles a key for the modal.
func (m *modal) key(ev *tcell.EventKey, action string, width int) {
	if ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyCtrlC {
		m.answer(modalResult{})
		return
	}
	switch m.kind {
	case "view":
		m.view.key(ev)
	case "confirm":
		switch {
		case ev.Key() == tcell.KeyRune && strings.ContainsRune("yY", ev.Rune()), ev.Key() == tcell.KeyEnter:
			m.answer(modalResult{index: 1, ok: true})
		case ev.Key() == tcell.KeyRune && strings.ContainsRune("nN", ev.Rune()):
			m.answer(modalResult{index: 0, ok: true})
		}
	case "input", "editor":
		if ev.Key() == tcell.KeyEnter && ev.Modifiers()&tcell.ModShift == 0 {
			m.answer(modalResult{text: m.input.Text(), ok: true})
			return
		}
		if action == "newline" && m.kind == "editor" {
			m.input.Insert("\n")
			return
		}
		typeKey(m.input, ev, action, width)
	default:
		m.selectKey(ev)
	}
}

func (m *modal) selectKey(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyUp:
		m.sel = max(0, m.sel-1)
	case tcell.KeyDown:
		m.sel = min(len(m.shown)-1, m.sel+1)
	case tcell.KeyPgUp:
		m.sel = max(0, m.sel-modalRows)
	case tcell.KeyPgDn:
		m.sel = max(0, min(len(m.shown)-1, m.sel+modalRows))
	case tcell.KeyHome:
		m.sel = 0
	case tcell.KeyEnd:
		m.sel = max(0, len(m.shown)-1)
	case tcell.KeyEnter:
		if len(m.shown) > 0 {
			m.answer(modalResult{index: m.shown[m.sel], text: m.options[m.shown[m.sel]], ok: true})
		}
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if r := []rune(m.filter); len(r) > 0 {
			m.setFilter(string(r[:len(r)-1]))
		}
	case tcell.KeyRune:
		m.setFilter(m.filter + string(ev.Rune()))
	}
}

func (m *modal) setFilter(text string) {
	m.filter = text
	if m.search != nil {
		m.search.newQuery(text)
	}
	m.refilter()
}

// render draws the modal; only a transcript view takes up to height lines.
func (m *modal) render(th *theme.Theme, width, height int) []string {
	if m.view != nil {
		return m.view.render(th, width, height)
	}
	border := paint(th.Accent, strings.Repeat("─", width))
	out := []string{border, paint(sBold+th.Accent, Truncate(m.title, width, "…"))}
	switch m.kind {
	case "confirm":
		out = append(out, Wrap(sanitize(m.message), width)...)
		out = append(out, paint(th.Muted, "y yes · n no · esc cancel"))
	case "input":
		out = append(out, m.input.Render(width)[1:]...)
		out = out[:len(out)-1]
		out = append(out, paint(th.Muted, "enter confirm · esc cancel"))
	case "editor": // pi.editor: several lines, scrolled like the main editor's
		rows := m.input.Render(width)
		out = append(out, rows[1:len(rows)-1]...)
		for n := len(rows) - 2; n < editorMinRows; n++ {
			out = append(out, "")
		}
		out = append(out, paint(th.Muted, Truncate("enter submit · shift+enter new line · esc cancel · ctrl+g $EDITOR", width, "…")))
	default:
		out = append(out, m.renderList(th, width)...)
	}
	return append(out, border)
}

func (m *modal) renderList(th *theme.Theme, width int) []string {
	var out []string
	if m.filter != "" {
		out = append(out, paint(th.Muted, Truncate("filter: "+m.filter, width, "…")))
	}
	rows := modalRows
	if m.search != nil && m.filter != "" {
		rows = modalRows / 2 // a row and the line that matched
	}
	first := max(0, m.sel-rows+1)
	for k := first; k < len(m.shown) && k < first+rows; k++ {
		label := Truncate(sanitize(m.options[m.shown[k]]), max(width-2, 1), "…")
		if k == m.sel {
			out = append(out, paint(th.Accent, "› ")+paint(sBold, label))
		} else {
			out = append(out, "  "+label)
		}
		if line, ok := m.matchLine(m.shown[k]); ok {
			out = append(out, paint(th.Muted, "    "+Truncate(sanitize(line), max(width-4, 1), "…")))
		}
	}
	if len(m.shown) == 0 {
		out = append(out, paint(th.Muted, "  (no match)"))
	}
	typing := "type to filter"
	if m.search != nil {
		typing = "type to search"
	}
	return append(out, paint(th.Muted, Truncate(fmt.Sprintf("%d/%d%s · ↑↓ move · enter choose · %s · esc cancel",
		len(m.shown), len(m.options), m.searchNote(), typing), width, "…")))
}
