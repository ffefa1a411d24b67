package tui

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// Editor limits, as in pi.
const (
	historySize    = 100
	pasteMaxLines  = 10
	pasteMaxChars  = 1000
	editorMaxRows  = 12
	killRingLength = 20
)

// Editor is the multi-line prompt editor: wrapping, history, paste markers, word motions and
// deletions, a kill ring and undo. Its text is runes with a cursor index; rendering wraps by
// cells, not words, so that a cursor position maps to exactly one cell.
type Editor struct {
	buf    []rune
	cursor int

	history []string
	histPos int    // len(history) when not browsing
	draft   string // the text before browsing started

	pastes    map[int]string
	pasteNext int

	killRing  []string
	lastYank  [2]int // start and end of the last yank, for yank-pop
	yankIndex int
	lastOp    string

	undo []editorSnap

	// BorderStyle colours the border lines (the App sets it from its theme and the thinking
	// level); "" leaves them in the terminal's colour.
	BorderStyle string

	drawn    []string // the lines last rendered, for drawnFor
	drawnFor editorKey
}

// editorKey is everything the editor's lines depend on.
type editorKey struct {
	text                string
	cursor, width, rows int
	style               string
}

type editorSnap struct {
	buf    string
	cursor int
}

// NewEditor returns an empty editor.
func NewEditor() *Editor {
	return &Editor{pastes: map[int]string{}, pasteNext: 1}
}

// Text returns the editor's text with paste markers expanded: what gets sent.
func (e *Editor) Text() string {
	s := string(e.buf)
	for n, p := range e.pastes {
		s = strings.ReplaceAll(s, pasteMarker(n, p), p)
	}
	return s
}

// RawText returns the text as shown, markers unexpanded.
func (e *Editor) RawText() string { return string(e.buf) }

// SetText replaces the text and leaves history browsing.
func (e *Editor) SetText(s string) {
	e.snapshot("set")
	e.buf, e.cursor = []rune(s), len([]rune(s))
	e.histPos = len(e.history)
}

// Clear empties the editor (after a send) and forgets pastes.
func (e *Editor) Clear() {
	e.buf, e.cursor = nil, 0
	e.pastes, e.undo = map[int]string{}, nil
	e.histPos = len(e.history)
}

// AddHistory records a sent text: no empty entries, no consecutive duplicates, at most 100.
func (e *Editor) AddHistory(s string) {
	if strings.TrimSpace(s) == "" || (len(e.history) > 0 && e.history[len(e.history)-1] == s) {
		e.histPos = len(e.history)
		return
	}
	e.history = append(e.history, s)
	if len(e.history) > historySize {
		e.history = e.history[len(e.history)-historySize:]
	}
	e.histPos = len(e.history)
}

func pasteMarker(n int, p string) string {
	if lines := strings.Count(p, "\n") + 1; lines > pasteMaxLines {
		return fmt.Sprintf("[paste #%d +%d lines]", n, lines)
	}
	return fmt.Sprintf("[paste #%d %d chars]", n, len([]rune(p)))
}

// Paste inserts pasted text; a large paste becomes a marker expanded on send.
func (e *Editor) Paste(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	if strings.Count(s, "\n")+1 > pasteMaxLines || len([]rune(s)) > pasteMaxChars {
		n := e.pasteNext
		e.pasteNext++
		e.pastes[n] = s
		s = pasteMarker(n, s)
	}
	e.snapshot("paste")
	e.insert(s)
}

// Insert types text at the cursor.
func (e *Editor) Insert(s string) {
	op := "type"
	if strings.TrimSpace(s) == "" {
		op = "space"
	}
	e.snapshot(op)
	e.insert(s)
}

func (e *Editor) insert(s string) {
	r := []rune(s)
	e.buf = append(e.buf[:e.cursor], append(r, e.buf[e.cursor:]...)...)
	e.cursor += len(r)
	e.histPos = len(e.history)
}

// snapshot pushes an undo state unless op continues the previous typing run, so that undo
// takes back a word at a time.
func (e *Editor) snapshot(op string) {
	if op == "type" && e.lastOp == "type" {
		return
	}
	e.lastOp = op
	e.undo = append(e.undo, editorSnap{string(e.buf), e.cursor})
	if len(e.undo) > 200 {
		e.undo = e.undo[1:]
	}
}

// Undo restores the state before the last edit.
func (e *Editor) Undo() {
	if len(e.undo) == 0 {
		return
	}
	s := e.undo[len(e.undo)-1]
	e.undo = e.undo[:len(e.undo)-1]
	e.buf, e.cursor, e.lastOp = []rune(s.buf), s.cursor, "undo"
}

// Backspace deletes the rune before the cursor.
func (e *Editor) Backspace() {
	if e.cursor > 0 {
		e.snapshot("delete")
		e.deleteRange(e.cursor-1, e.cursor)
	}
}

// Delete deletes the rune under the cursor.
func (e *Editor) Delete() {
	if e.cursor < len(e.buf) {
		e.snapshot("delete")
		e.deleteRange(e.cursor, e.cursor+1)
	}
}

func (e *Editor) deleteRange(from, to int) string {
	cut := string(e.buf[from:to])
	e.buf = append(e.buf[:from], e.buf[to:]...)
	e.cursor = from
	return cut
}

// kill deletes [from, to) into the kill ring; consecutive kills grow one entry, as in Emacs.
func (e *Editor) kill(from, to int, prepend bool) {
	if from >= to {
		return
	}
	grow := e.lastOp == "kill" && len(e.killRing) > 0
	e.snapshot("kill")
	cut := e.deleteRange(from, to)
	switch {
	case grow && prepend:
		e.killRing[len(e.killRing)-1] = cut + e.killRing[len(e.killRing)-1]
	case grow:
		e.killRing[len(e.killRing)-1] += cut
	default:
		e.killRing = append(e.killRing, cut)
		if len(e.killRing) > killRingLength {
			e.killRing = e.killRing[1:]
		}
	}
	e.lastOp = "kill"
}

// KillWordBack deletes the word before the cursor (Ctrl+W, Alt+Backspace).
func (e *Editor) KillWordBack() { e.kill(e.wordLeft(), e.cursor, true) }

// KillWordForward deletes the word after the cursor (Alt+D).
func (e *Editor) KillWordForward() { e.kill(e.cursor, e.wordRight(), false) }

// KillToEnd deletes to the end of the line (Ctrl+K).
func (e *Editor) KillToEnd() {
	end := e.lineEnd()
	if end == e.cursor && end < len(e.buf) {
		end++ // at the end of a line, join the next one
	}
	e.kill(e.cursor, end, false)
}

// KillToStart deletes to the start of the line (Ctrl+U).
func (e *Editor) KillToStart() { e.kill(e.lineStart(), e.cursor, true) }

// Yank inserts the newest kill (Ctrl+Y).
func (e *Editor) Yank() {
	if len(e.killRing) == 0 {
		return
	}
	e.yankIndex = len(e.killRing) - 1
	e.snapshot("yank")
	start := e.cursor
	e.insert(e.killRing[e.yankIndex])
	e.lastYank, e.lastOp = [2]int{start, e.cursor}, "yank"
}

// YankPop replaces the text just yanked with the previous kill (Alt+Y).
func (e *Editor) YankPop() {
	if e.lastOp != "yank" || len(e.killRing) < 2 {
		return
	}
	e.yankIndex = (e.yankIndex - 1 + len(e.killRing)) % len(e.killRing)
	e.deleteRange(e.lastYank[0], e.lastYank[1])
	e.insert(e.killRing[e.yankIndex])
	e.lastYank[1] = e.cursor
	e.lastOp = "yank"
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func (e *Editor) wordLeft() int {
	i := e.cursor
	for i > 0 && !isWord(e.buf[i-1]) {
		i--
	}
	for i > 0 && isWord(e.buf[i-1]) {
		i--
	}
	return i
}

func (e *Editor) wordRight() int {
	i := e.cursor
	for i < len(e.buf) && !isWord(e.buf[i]) {
		i++
	}
	for i < len(e.buf) && isWord(e.buf[i]) {
		i++
	}
	return i
}

// Cursor motions.
func (e *Editor) Left()      { e.cursor = max(0, e.cursor-1); e.lastOp = "move" }
func (e *Editor) Right()     { e.cursor = min(len(e.buf), e.cursor+1); e.lastOp = "move" }
func (e *Editor) WordLeft()  { e.cursor = e.wordLeft(); e.lastOp = "move" }
func (e *Editor) WordRight() { e.cursor = e.wordRight(); e.lastOp = "move" }
func (e *Editor) Home()      { e.cursor = e.lineStart(); e.lastOp = "move" }
func (e *Editor) End()       { e.cursor = e.lineEnd(); e.lastOp = "move" }

func (e *Editor) lineStart() int {
	i := e.cursor
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

func (e *Editor) lineEnd() int {
	i := e.cursor
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

// Up moves up a visual line; on an empty editor, or while browsing history on the first line,
// it recalls the previous history entry. It reports whether it did anything.
func (e *Editor) Up(width int) {
	browsing := e.histPos < len(e.history)
	if len(e.buf) == 0 || (browsing && e.cursorRow(width) == 0) {
		if e.histPos > 0 {
			if !browsing {
				e.draft = string(e.buf)
			}
			e.histPos--
			e.buf = []rune(e.history[e.histPos])
			e.cursor = len(e.buf)
		}
		return
	}
	e.moveRow(width, -1)
}

// Down moves down a visual line, or forward in history while browsing on the last line.
func (e *Editor) Down(width int) {
	rows := e.rows(width)
	if e.histPos < len(e.history) && e.cursorRow(width) == len(rows)-1 {
		e.histPos++
		text := e.draft
		if e.histPos < len(e.history) {
			text = e.history[e.histPos]
		}
		e.buf = []rune(text)
		e.cursor = len(e.buf)
		return
	}
	e.moveRow(width, 1)
}

// row is one visual line: runes [start, end) of buf.
type row struct{ start, end int }

// rows wraps the text by cells into visual rows of at most width-1 cells, leaving room for the
// cursor after the last character.
func (e *Editor) rows(width int) []row {
	w := max(width-1, 1)
	var rows []row
	start, cells := 0, 0
	for i, r := range e.buf {
		if r == '\n' {
			rows = append(rows, row{start, i})
			start, cells = i+1, 0
			continue
		}
		rw := runewidth.RuneWidth(r)
		if cells+rw > w {
			rows = append(rows, row{start, i})
			start, cells = i, 0
		}
		cells += rw
	}
	return append(rows, row{start, len(e.buf)})
}

func (e *Editor) cursorRow(width int) int {
	rows := e.rows(width)
	for i, r := range rows {
		if e.cursor >= r.start && e.cursor <= r.end && (e.cursor < r.end || i == len(rows)-1 || e.buf[r.end] == '\n') {
			return i
		}
	}
	return len(rows) - 1
}

func (e *Editor) moveRow(width, delta int) {
	rows := e.rows(width)
	cur := e.cursorRow(width)
	target := cur + delta
	if target < 0 || target >= len(rows) {
		return
	}
	col := runewidth.StringWidth(string(e.buf[rows[cur].start:e.cursor]))
	r := rows[target]
	i, cells := r.start, 0
	for i < r.end && cells+runewidth.RuneWidth(e.buf[i]) <= col {
		cells += runewidth.RuneWidth(e.buf[i])
		i++
	}
	e.cursor, e.lastOp = i, "move"
}

// Render draws the editor between two border lines, scrolled to keep the cursor visible,
// with the cursor as a reverse-video cell.
func (e *Editor) Render(width int) []string { return e.renderRows(width, editorMaxRows) }

// renderRows is Render showing at most maxRows rows of text (at least one). The lines are
// kept until something they show changes; the caller must not change them.
func (e *Editor) renderRows(width, maxRows int) []string {
	maxRows = max(maxRows, 1)
	key := editorKey{string(e.buf), e.cursor, width, maxRows, e.BorderStyle}
	if e.drawn != nil && key == e.drawnFor {
		return e.drawn
	}
	e.drawn, e.drawnFor = e.layOut(width, maxRows), key
	return e.drawn
}

func (e *Editor) layOut(width, maxRows int) []string {
	border := paint(e.BorderStyle, strings.Repeat("─", width))
	rows := e.rows(width)
	cur := e.cursorRow(width)
	first := max(0, cur-maxRows+1)
	out := []string{border}
	for i := first; i < len(rows) && i < first+maxRows; i++ {
		out = append(out, e.renderRow(rows[i], i == cur))
	}
	return append(out, border)
}

func (e *Editor) renderRow(r row, hasCursor bool) string {
	if !hasCursor {
		return string(e.buf[r.start:r.end])
	}
	var b strings.Builder
	b.WriteString(string(e.buf[r.start:e.cursor]))
	under := " "
	if e.cursor < r.end {
		under = string(e.buf[e.cursor])
	}
	b.WriteString(sReverse + under + reset)
	if e.cursor < r.end {
		b.WriteString(string(e.buf[e.cursor+1 : r.end]))
	}
	return b.String()
}
