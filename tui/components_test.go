package tui

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/tui/theme"
)

// goldenLines records rendered lines with their escapes visible, one per line.
func goldenLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strconv.Quote(l) + "\n")
	}
	return b.String()
}

func checkWidth(t *testing.T, name string, lines []string, width int) {
	t.Helper()
	for _, l := range lines {
		if Width(l) > width {
			t.Errorf("%s: line wider than %d: %q", name, width, l)
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	cases := map[string]string{
		"headings_emphasis": "# Title\n\n## Section\n\n### Sub\n\nSome *em*, **bold**, ~~gone~~, `code` and a [link](https://example.com) that wraps around.",
		"lists":             "- one\n- two\n  - nested item that is long enough to wrap\n\n1. first\n2. second\n\n> quoted text",
		"code":              "```go\nfunc main() {\n\tx := \"s\" // note\n\treturn 42\n}\n```\n\n```\nplain text\n```",
		"table":             "| a | b | c |\n|:--|:-:|--:|\n| left | mid | right |\n| a much longer cell that must wrap | x | 1 |",
		"wide":              "日本語のテキストはここで折り返されます。絵文字 👍🏽 と e\u0301 も。",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			m := NewMarkdown(theme.Dark())
			m.SetText(src)
			lines := m.Render(40)
			checkWidth(t, name, lines, 40)
			golden(t, "markdown_"+name, goldenLines(lines))
		})
	}
}

// Rendering streamed markdown chunk by chunk ends with the same lines as rendering it whole.
func TestMarkdownIncrementalEqualsWhole(t *testing.T) {
	src := benchReply() + "\n\nFinal paragraph after everything."
	whole := NewMarkdown(theme.Dark())
	whole.SetText(src)
	want := strings.Join(whole.Render(60), "\n")
	inc := NewMarkdown(theme.Dark())
	for i := 7; i < len(src); i += 7 {
		inc.SetText(src[:i])
		inc.Render(60)
	}
	inc.SetText(src)
	if got := strings.Join(inc.Render(60), "\n"); got != want {
		t.Fatalf("incremental render differs\n--- got\n%s\n--- want\n%s", got, want)
	}
}

func TestToolBoxes(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return start.Add(2300 * time.Millisecond) }
	many := func(n int) []provider.Block {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString("line " + strconv.Itoa(i) + "\n")
		}
		return []provider.Block{provider.Text(b.String())}
	}
	collapsed, expanded := false, true
	cases := []struct {
		name string
		tool *toolView
	}{
		{"bash_running", &toolView{th: theme.Dark(), name: "bash", args: map[string]any{"command": "go test ./..."}, state: toolRunning}},
		{"bash_done_tail", &toolView{th: theme.Dark(), name: "bash", args: map[string]any{"command": "make"}, state: toolDone}},
		{"read_head", &toolView{th: theme.Dark(), name: "read", args: map[string]any{"path": "main.go", "offset": 10.0}, state: toolDone}},
		{"edit_diff", &toolView{th: theme.Dark(), name: "edit", args: map[string]any{"path": "a.go"}, state: toolDone, diff: " 1 keep\n-2 old line\n+2 new line\n   ..."}},
		{"error", &toolView{th: theme.Dark(), name: "write", args: map[string]any{"path": "/etc/x"}, state: toolFailed}},
		{"expanded", &toolView{th: theme.Dark(), name: "grep", args: map[string]any{"pattern": "TODO"}, state: toolDone, expanded: &expanded}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tv := c.tool
			tv.started, tv.now = start, now
			if tv.expanded == nil {
				tv.expanded = &collapsed
			}
			if tv.state != toolRunning {
				tv.ended = now()
			}
			switch c.name {
			case "error":
				tv.setOutput([]provider.Block{provider.Text("permission denied")})
			case "edit_diff":
			default:
				tv.setOutput(many(25))
			}
			lines := tv.Render(50)
			checkWidth(t, c.name, lines, 50)
			golden(t, "tool_"+c.name, goldenLines(lines))
		})
	}
}

func TestThinkingCollapses(t *testing.T) {
	show := false
	a := newAssistantView(theme.Dark(), &show)
	a.set(&provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
		provider.Thinking("first I will think\nat length"), provider.Text("answer")}})
	collapsed := plain(a.Render(40))
	show = true
	open := plain(a.Render(40))
	if len(collapsed) != 3 || !strings.Contains(collapsed[0], "ctrl+t") {
		t.Errorf("collapsed thinking: %q", collapsed)
	}
	if len(open) != 4 || !strings.Contains(open[1], "at length") {
		t.Errorf("open thinking: %q", open)
	}
}

// A streamed reply laid out update by update gives, after every update, the same lines as
// parsing that much of it afresh: the line-by-line layout of a streaming code block, the
// growing paragraph and the resumed chunk scan change nothing but the cost.
func TestMarkdownStreamedEqualsParsed(t *testing.T) {
	var code strings.Builder
	code.WriteString("Some code:\n\n```go\n")
	for i := range 30 {
		fmt.Fprintf(&code, "\tx%d := f(%d) // step %d of a long function that wraps at the narrow width\n", i, i, i)
		if i%7 == 3 {
			code.WriteString("/* a block comment\n   over lines */\n\n\n")
		}
	}
	code.WriteString("```\n\nAfter the code.\n")
	docs := map[string]string{
		"bench":          benchReply(),
		"long code":      code.String(),
		"fences":         "~~~python\ndef f():\n    return 1\n~~~\n\n````md\n```go\ninner\n```\n````\n\n```go title\nx\n```\n\n```nolang\nplain\n\n\n",
		"odd bytes":      "```sh\necho a\r\nb\x00c\x1b[31mred\x1b[0m\n  ``` not closed\n    ```\nend\n",
		"indented":       "  ```go\n  x := 1\n  ```\n\n```\n\n\n```\n",
		"empty and open": "text\n\n```js\n\n\n",
		"lists": "- first point about the change\n- second point, with `code` and more words to wrap at narrow widths\n- third\n\n" +
			"1. one\n2. two with *emph* words\n\n- loose a\n\n- loose b words words\n\n10. ten\n11. eleven item text\n\n" +
			"* star\n+ plus item text\n\n- a\n  - nested item words\n- b\n  more lazy text\n\n- [link](x) item",
		"paragraphs": "Plain words then **bold** and more words, *a*b intraword and __c__d.\n\n" +
			"<di" + "v class=\"x\">\nhtml\n</div>\n\nA line ending in _emph_ and then text.\n\nTitle\n---\n\n" +
			"Table head | x\n|--|--|\n| a | b |\n\n[ref]: http://example.com \"title\"\n\n" +
			"Use [ref] here and &amp; and &copy and a\\\\ backslash\\.\n\n**unclosed bold keeps going and going\n\n" +
			"A paragraph that wraps at the narrow width because it is long enough, with spaces   \n" +
			"and a second line (soft break) then a hard one  \nthird line.\n\n1. list after\n\n" +
			"Text with `code` and `unclosed code, ~~gone~~ and ~one~.\n\n" +
			"Non-ASCII: 日本語のテキスト, café, 👍🏽 and e\u0301 in a paragraph; (parens) \"quotes\" 100% $5 a@b #tag.\n",
	}
	for name, doc := range docs {
		for _, c := range [][2]int{{20, 1}, {60, 1}, {20, 3}, {60, 5}, {20, 7}, {60, 16}} { // width, step
			width, step := c[0], c[1]
			t.Run(fmt.Sprintf("%s/%dx%d", name, width, step), func(t *testing.T) {
				inc := NewMarkdown(theme.Dark())
				for i := 1; i <= len(doc); i = min(i+step, len(doc)+btoi(i == len(doc))) {
					inc.SetText(doc[:i])
					got := inc.Render(width)
					whole := NewMarkdown(theme.Dark())
					whole.parseAll = true
					whole.SetText(doc[:i])
					if want := whole.Render(width); strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("after %q\n--- streamed\n%s\n--- whole\n%s", doc[:i], goldenLines(got), goldenLines(want))
					}
				}
			})
		}
	}
}

// Cutting the source into chunks changes nothing: every document lays out as one parse of
// the whole of it does.
func TestMarkdownChunksEqualOneParse(t *testing.T) {
	docs := map[string]string{
		"bench":        benchReply(),
		"loose list":   "Intro.\n\n- one\n\n- two\n\n  more of two\n\n- three\n\nAfter.\n",
		"ordered":      "Steps:\n\n1. first\n\n2. second\n\n10. tenth\n\n2024 was a year.\n",
		"quotes":       "> one\n\n> two\n\nText.\n\n> three\n> four\n",
		"tables":       "| a | b |\n|---|---|\n| 1 | 2 |\n\n| c |\n|---|\n| 3 |\n\nText after.\n",
		"list then":    "- a\n- b\n\n> quote after a list\n\n| t |\n|---|\n| x |\n\n* star item\n\n*emphasis* para\n",
		"indented":     "Para.\n\n    indented code\n\n  - indented item\n\n- item\n",
		"thematic":     "Para.\n\n---\n\n***\n\n+ plus\n\nend\n",
		"setext":       "Title\n=====\n\nSub\n---\n\nText.\n",
		"code in list": "- item\n\n  ```go\n  x := 1\n  ```\n\n- next\n\nDone.\n",
	}
	for name, doc := range docs {
		for _, width := range []int{24, 80} {
			m := NewMarkdown(theme.Dark())
			m.SetText(doc)
			got := m.Render(width)
			one := NewMarkdown(theme.Dark())
			one.width = width
			want, _ := one.renderChunk(doc, 0)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s at %d: chunked\n%s\none parse\n%s", name, width, goldenLines(got), goldenLines(want))
			}
		}
	}
}

// Text appended to a paragraph reads as a full parse reads it, also where the paragraph as
// parsed before could not simply be continued.
func TestMarkdownParagraphAppend(t *testing.T) {
	cases := [][2]string{ // what was parsed, what arrives next
		{"plain words", " and more words."},
		{"trailing space ", "then a word"},
		{"an _emph_", "asis that is not"},
		{"intra *a*", "b and __c__d"},
		{"a link [text](http", "://example.com) here"},
		{"fish &amp", "; chips"},
		{"escaped x\\", "# and more"},
		{"<di", "v class=x"},
		{"code `span", " still open"},
		{"| head |\n|-", "- and more"},
		{"unicode café", " 日本語 👍🏽 e\u0301"},
		{"- a\n- item", " more words that wrap at the narrow width"},
		{"1. one\n9. tw", "o and three"},
		{"- loose\n\n- item", " text"},
		{"- a\n  - nested", " deeper words"},
		{"- a\n\n  para in item", " more"},
		{"- a\ncontinued lazily", " and on"},
		{"> quote", " more"},
		{"para\n1", ". a list that interrupts"},
		{"2024", ". the year"},
		{"1", ") item"},
	}
	for _, c := range cases {
		for _, width := range []int{12, 60} {
			m := NewMarkdown(theme.Dark())
			m.SetText(c[0])
			m.Lines(width)
			m.SetText(c[0] + c[1])
			got := m.Render(width)
			whole := NewMarkdown(theme.Dark())
			whole.parseAll = true
			whole.SetText(c[0] + c[1])
			if want := whole.Render(width); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%q + %q at %d:\n%s\nwant\n%s", c[0], c[1], width, goldenLines(got), goldenLines(want))
			}
		}
	}
}

// Any text, streamed in pieces of any size, lays out as a full parse of it does at every step.
func FuzzMarkdownStreamed(f *testing.F) {
	for _, s := range []string{benchReply(), "- a\n- b c\n\n1. x\n2", "p *a* b\n\n```go\nx\n```\nq", "t\n\n<di", "a\n1", "| a |\n|-"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, doc string, step uint8) {
		if len(doc) > 2000 {
			return
		}
		inc := NewMarkdown(theme.Dark())
		for i := 1; ; i += int(step%17) + 1 {
			i = min(i, len(doc))
			inc.SetText(doc[:i])
			got := inc.Render(30)
			whole := NewMarkdown(theme.Dark())
			whole.parseAll = true
			whole.SetText(doc[:i])
			if want := whole.Render(30); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("after %q\n--- streamed\n%s\n--- parsed\n%s", doc[:i], goldenLines(got), goldenLines(want))
			}
			if i >= len(doc) {
				break
			}
		}
	})
}

// TestFailedWriteShowsTheError: a write that was refused (unread file, read-only mode, a hook)
// shows why, as every other tool's failure does, not the content it meant to write; a write
// that succeeded still previews its content.
func TestFailedWriteShowsTheError(t *testing.T) {
	collapsed := false
	cases := []struct {
		name       string
		state      toolState
		result     string
		want, lose string
	}{
		{"refused as unread", toolFailed, "a.go exists and was not read: read it first", "not read", "package secret"},
		{"read-only mode", toolFailed, "write refused: read-only mode", "read-only", "package secret"},
		{"written", toolDone, "Wrote 2 lines to a.go", "package secret", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tv := &toolView{th: theme.Dark(), name: "write", state: c.state, expanded: &collapsed, now: time.Now,
				args: map[string]any{"path": "a.go", "content": "package secret\nfunc x() {}\n"}}
			tv.setOutput([]provider.Block{provider.Text(c.result)})
			got := strings.Join(plain(tv.Render(80)), "\n")
			if !strings.Contains(got, c.want) || (c.lose != "" && strings.Contains(got, c.lose)) {
				t.Fatalf("box shows\n%s\nwant %q and not %q", got, c.want, c.lose)
			}
		})
	}
}

// TestHiddenLineCountIsPlural: the collapsed box counts what it hides in proper English.
func TestHiddenLineCountIsPlural(t *testing.T) {
	collapsed := false
	for _, c := range []struct {
		lines int
		want  string
	}{{11, "1 more line "}, {12, "2 more lines "}} {
		tv := &toolView{th: theme.Dark(), name: "read", state: toolDone, expanded: &collapsed, now: time.Now}
		tv.setOutput([]provider.Block{provider.Text(strings.Repeat("x\n", c.lines))})
		if got := strings.Join(plain(tv.Render(80)), "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%d lines: box ends\n%s\nwant %q", c.lines, got, c.want)
		}
	}
}
