package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"pi/provider"
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
			m := NewMarkdown()
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
	whole := NewMarkdown()
	whole.SetText(src)
	want := strings.Join(whole.Render(60), "\n")
	inc := NewMarkdown()
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
		{"bash_running", &toolView{name: "bash", args: map[string]any{"command": "go test ./..."}, state: toolRunning}},
		{"bash_done_tail", &toolView{name: "bash", args: map[string]any{"command": "make"}, state: toolDone}},
		{"read_head", &toolView{name: "read", args: map[string]any{"path": "main.go", "offset": 10.0}, state: toolDone}},
		{"edit_diff", &toolView{name: "edit", args: map[string]any{"path": "a.go"}, state: toolDone, diff: " 1 keep\n-2 old line\n+2 new line\n   ..."}},
		{"error", &toolView{name: "write", args: map[string]any{"path": "/etc/x"}, state: toolFailed}},
		{"expanded", &toolView{name: "grep", args: map[string]any{"pattern": "TODO"}, state: toolDone, expanded: &expanded}},
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
	a := newAssistantView(&show)
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
