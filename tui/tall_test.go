package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// numberedReply is a reply of n numbered source lines in paragraphs of ten, wide enough to
// wrap at 120 columns, ending with its own marker line.
func numberedReply(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s line %d of the long reply, with words enough to wrap.\n", tag, i)
		if i%10 == 9 {
			b.WriteString("\n")
		}
	}
	b.WriteString(tag + " END OF REPLY")
	return b.String()
}

var testFooter = FooterInfo{Cwd: "/work/proj", Model: "faux/model"}

// checkBottom fails unless the screen (but for blank rows at the bottom) ends with the editor (showing editorText) and the
// footer, and the last text above them (above the status line, when working) ends with want.
func checkBottom(t *testing.T, step string, term *vt, editorText, want string) {
	t.Helper()
	rows := make([]string, term.h)
	for i, r := range term.rows {
		rows[i] = rowText(r)
	}
	h := term.h // the region ends on the last row that is not blank (it shrinks when work ends)
	for h > 5 && rows[h-1] == "" {
		h--
	}
	ok := strings.Contains(rows[h-1], "faux/mode") && // the last column stays free
		rows[h-2] == testFooter.Cwd &&
		strings.HasPrefix(rows[h-3], "───") && strings.TrimSpace(rows[h-4]) == editorText &&
		strings.HasPrefix(rows[h-5], "───")
	last := h - 6
	for last >= 0 && (rows[last] == "" || strings.Contains(rows[last], "esc to interrupt")) {
		last--
	}
	if ok && want != "" {
		ok = last >= 0 && strings.HasSuffix(rows[last], want)
	}
	if !ok {
		t.Fatalf("%s: the screen does not end with %q, the editor showing %q and the footer:\n%s",
			step, want, editorText, strings.Join(rows, "\n"))
	}
}

// lastWord is the last word of text.
func lastWord(text string) string {
	f := strings.Fields(text)
	return f[len(f)-1]
}

// checkOnce fails unless every numbered line of tag appears exactly once, in order, in the
// scrollback and on screen (rows joined, since a source line wraps over rows).
func checkOnce(t *testing.T, term *vt, tag string, n int) {
	t.Helper()
	all := strings.Join(term.all(), " ")
	re := regexp.MustCompile(tag + ` line (\d+) of`)
	next := 0
	for _, m := range re.FindAllStringSubmatch(all, -1) {
		if k, _ := strconv.Atoi(m[1]); k != next {
			t.Fatalf("%s line %d where line %d was expected", tag, k, next)
		}
		next++
	}
	if next != n || strings.Count(all, tag+" END OF REPLY") != 1 {
		t.Fatalf("%s: %d of %d lines, %d end markers", tag, next, n, strings.Count(all, tag+" END OF REPLY"))
	}
	if term.clears != 0 {
		t.Fatalf("the screen was cleared %d times", term.clears)
	}
}

// A reply far taller than the screen, after a long transcript, streamed in big chunks with
// frames at any rhythm: after every frame the editor and the footer are at the bottom and the
// newest text is right above them; at the end every line is in the scrollback once. (Before
// the fix, a frame that added more rows than the region had above its unchanged tail moved
// the cursor above the top of the screen to insert them: from then on every frame landed on
// the wrong rows, the editor and footer were gone, and the reply's end never showed.)
func TestTallReplyKeepsEditorAndFooter(t *testing.T) {
	cases := []struct {
		name          string
		chunk, frames int // characters per update, updates per frame
	}{
		{"4000-char chunks, a frame each", 4000, 1},
		{"4000-char chunks, a frame every third", 4000, 3},
		{"16-char chunks, a frame every 40", 16, 40},
		{"the whole reply in one frame", 1 << 20, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, term, _ := newTestApp(t, 120, 40, Callbacks{})
			app.SetFooter(testFooter)
			app.AddUserMessage("first")
			app.StartAssistant()
			app.EndAssistant(assistant(numberedReply("first", 5000)))
			app.Flush()
			app.AddUserMessage("second")
			app.SetWorking(true)
			text := numberedReply("second", 4800)
			app.StartAssistant()
			for i, n := c.chunk, 1; ; i, n = i+c.chunk, n+1 {
				app.UpdateAssistant(assistant(text[:min(i, len(text))]))
				if n%c.frames == 0 || i >= len(text) {
					app.Flush()
					checkBottom(t, fmt.Sprintf("after %d characters", min(i, len(text))), term, "", lastWord(text[:min(i, len(text))]))
				}
				if i >= len(text) {
					break
				}
			}
			app.EndAssistant(assistant(text))
			app.SetWorking(false)
			app.Flush()
			checkBottom(t, "at the end", term, "", "second END OF REPLY")
			checkOnce(t, term, "first", 5000)
			checkOnce(t, term, "second", 4800)
		})
	}
}

// A user message taller than the screen (a 60-line paste and a typed line) goes to the
// scrollback whole, followed by a blank line and the reply; typing afterwards lands in the
// editor, and a notice after it (what /clone prints) keeps the editor and footer in place.
func TestTallUserMessage(t *testing.T) {
	var sent string
	app, term, _ := newTestApp(t, 120, 40, Callbacks{OnSubmit: func(s string) { sent = s }})
	app.SetFooter(testFooter)
	app.Flush()
	var paste strings.Builder
	for i := range 60 {
		fmt.Fprintf(&paste, "pasted line %d\n", i)
	}
	app.HandleEvent(tcell.NewEventPaste(true))
	for _, r := range paste.String() {
		if r == '\n' {
			app.HandleEvent(key(tcell.KeyEnter, 0, 0))
		} else {
			app.HandleEvent(key(tcell.KeyRune, r, 0))
		}
	}
	app.HandleEvent(tcell.NewEventPaste(false))
	typeText(app, "explain this")
	app.Flush()
	app.HandleEvent(key(tcell.KeyEnter, 0, 0))
	app.AddUserMessage(sent)
	app.SetWorking(true)
	app.Flush()
	stream(app, "Here is the explanation.")
	app.SetWorking(false)
	app.Flush()
	checkBottom(t, "after the reply", term, "", "Here is the explanation.")
	typeText(app, "next question")
	app.Flush()
	checkBottom(t, "after typing", term, "next question", "Here is the explanation.")
	app.Notify(LevelInfo, "cloned session: 0123")
	app.Flush()
	checkBottom(t, "after /clone", term, "next question", "cloned session: 0123")
	all := term.all()
	at := -1
	for i, l := range all {
		if strings.HasSuffix(l, "pasted line 0") {
			at = i
		}
	}
	if at < 0 || at+61 >= len(all) {
		t.Fatalf("the message is not in the scrollback:\n%s", strings.Join(all, "\n"))
	}
	for i := range 60 {
		if !strings.HasSuffix(all[at+i], fmt.Sprintf("pasted line %d", i)) {
			t.Fatalf("row %d is %q, want pasted line %d:\n%s", at+i, all[at+i], i, strings.Join(all, "\n"))
		}
	}
	if got := all[at+60:][:3]; !strings.HasSuffix(got[0], "explain this") || got[1] != "" || got[2] != "Here is the explanation." {
		t.Fatalf("after the pasted lines: %q", got)
	}
	if n := strings.Count(strings.Join(all, "\n"), "pasted line 59"); n != 1 || term.clears != 0 {
		t.Fatalf("the last pasted line shows %d times; %d clears", n, term.clears)
	}
}

// On a screen too short for all of the chrome (a tall editor, the queue, the status line),
// the chrome shrinks instead of spilling: no editor, queue or footer line ever reaches the
// scrollback, and the footer stays at the bottom with the cursor's editor row above it.
func TestChromeFitsShortScreens(t *testing.T) {
	cases := []struct {
		name   string
		w, h   int
		resize [2]int // mid-stream, when set
	}{
		{"60x10", 60, 10, [2]int{}},
		{"60x7", 60, 7, [2]int{}},
		{"40x4", 40, 4, [2]int{}},
		{"40x3", 40, 3, [2]int{}},
		{"60x30 to 60x8", 60, 30, [2]int{60, 8}},
		{"60x8 to 80x30", 60, 8, [2]int{80, 30}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, term, _ := newTestApp(t, c.w, c.h, Callbacks{})
			app.SetFooter(testFooter)
			for i := range 8 {
				typeText(app, fmt.Sprintf("draft%d", i))
				app.HandleEvent(key(tcell.KeyEnter, 0, tcell.ModShift))
			}
			typeText(app, "cursor-row")
			app.AddUserMessage("question")
			app.SetWorking(true)
			app.SetQueue([]string{"queued-steer"}, []string{"queued-follow"})
			text := numberedReply("short", 60)
			app.StartAssistant()
			for i := 16; ; i += 16 {
				app.UpdateAssistant(assistant(text[:min(i, len(text))]))
				app.Flush()
				if i == 800 && c.resize[0] > 0 {
					term.resize(c.resize[0], c.resize[1])
					app.Resize(c.resize[0], c.resize[1])
					app.Flush()
				}
				rows := screenRows(term)
				if last := rows[len(rows)-1]; !strings.Contains(last, "faux/") {
					t.Fatalf("after %d characters the last row is %q:\n%s", i, last, strings.Join(rows, "\n"))
				}
				if !strings.Contains(strings.Join(rows, "\n"), "cursor-row") {
					t.Fatalf("after %d characters the editor's cursor row is gone:\n%s", i, strings.Join(rows, "\n"))
				}
				if i >= len(text) {
					break
				}
			}
			for _, l := range term.scrollback {
				for _, chrome := range []string{"draft", "cursor-row", "queued-", "/work/proj", "faux/", "───", "Working"} {
					if strings.Contains(l, chrome) {
						t.Fatalf("chrome line %q in the scrollback:\n%s", l, strings.Join(term.scrollback, "\n"))
					}
				}
			}
		})
	}
}

// screenRows is the screen without the blank rows at its bottom.
func screenRows(term *vt) []string {
	var rows []string
	for _, r := range term.rows {
		rows = append(rows, rowText(r))
	}
	for len(rows) > 1 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}
