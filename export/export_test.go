package export

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"pi/provider"
	"pi/session"
)

// redSquarePNG is a 24×24 red PNG, base64.
func redSquarePNG(t testing.TB) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 24, 24))
	for i := 0; i < 24*24; i++ {
		img.Set(i%24, i/24, color.NRGBA{220, 30, 30, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// testSession is a conversation with thinking, a tool call and its result, markdown with
// code, an image, and a branch: the user went back to the second reply and asked again.
func testSession(t testing.TB) *session.Session {
	t.Helper()
	s := session.InMemory(t.TempDir())
	add := func(m provider.Message) string {
		t.Helper()
		id, err := s.AppendMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	usage := func(in, out int, cost float64) *provider.Usage {
		return &provider.Usage{Input: in, Output: out, Cost: provider.Cost{Total: cost}}
	}
	add(provider.UserText("Fix the <bug> in main.go", 1))
	add(provider.Message{Role: provider.RoleAssistant, Model: "qwen3:8b", Provider: "ollama", Usage: usage(1200, 80, 0.0012), Content: []provider.Block{
		{Type: provider.BlockThinking, Thinking: "THINKING-ABOUT-IT: read the file first."},
		provider.Text("Let me look."),
		{Type: provider.BlockToolCall, ID: "c1", Name: "read", Arguments: map[string]any{"path": "main.go"}},
	}})
	add(provider.Message{Role: provider.RoleToolResult, ToolCallID: "c1", ToolName: "read",
		Content: []provider.Block{provider.Text("package main\n\nfunc main() { TOOL-OUTPUT }\n")}})
	fork := add(provider.Message{Role: provider.RoleAssistant, Model: "qwen3:8b", Provider: "ollama", Usage: usage(1500, 120, 0.0020), Content: []provider.Block{
		provider.Text("Here is the fix:\n\n```go\nfunc main() {\n\t// CODE-COMMENT\n\treturn\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
	}})
	add(provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.Text("What is in this screenshot?"),
		provider.Image(redSquarePNG(t), "image/png")}})
	add(provider.Message{Role: provider.RoleAssistant, Model: "qwen3:8b", Provider: "ollama", Usage: usage(800, 10, 0.0005),
		Content: []provider.Block{provider.Text("A red square.")}})
	if err := s.Branch(fork); err != nil {
		t.Fatal(err)
	}
	add(provider.UserText("Try another way", 2))
	add(provider.Message{Role: provider.RoleAssistant, Model: "qwen3:8b", Provider: "ollama", Usage: usage(900, 30, 0.0007),
		Content: []provider.Block{provider.Text("ALTERNATIVE-ANSWER")}})
	return s
}

func TestPageShowsTheWholeSession(t *testing.T) {
	var buf bytes.Buffer
	if err := HTML(&buf, testSession(t), Options{Title: "Bug hunt", Model: "ollama/qwen3:8b"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		"<title>Bug hunt</title>",
		"ollama/qwen3:8b",
		"4,640 (4,400 in, 240 out",            // token totals over every branch
		"$0.0044",                             // cost total
		`<details class="thinking">`,          // thinking, collapsed
		"THINKING-ABOUT-IT",                   //
		"Tool call <code>read main.go</code>", // the call, collapsed
		`<details class="result"><summary>read · 3 lines</summary>`,
		"TOOL-OUTPUT",
		`<span class="k">func</span>`, // highlighted code
		`<span class="c">// CODE-COMMENT</span>`,
		"<table>", // markdown tables
		`<img class="inline" alt="image/png" src="data:image/png;base64,`,
		"Fix the &lt;bug&gt; in main.go", // HTML in text is text
		`<nav class="tree">`,             // the branches' outline
		"● ", "ALTERNATIVE-ANSWER", "A red square.",
		`<h2 class="branch">Branch 1`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Every outline row links to a message on the page.
	for _, m := range regexp.MustCompile(`<li[^>]*><a href="#(e-[0-9a-f]+)"`).FindAllStringSubmatch(page, -1) {
		if !strings.Contains(page, `id="`+m[1]+`"`) {
			t.Errorf("outline row %s links to nothing", m[1])
		}
	}
	// Nothing is loaded from elsewhere, and no script runs.
	if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).MatchString(page) || strings.Contains(page, "<script") {
		t.Error("the page loads from the network or runs a script")
	}
	// The current branch comes first: its answer precedes the branch left behind.
	body := page[strings.Index(page, "</nav>"):]
	if strings.Index(body, "ALTERNATIVE-ANSWER") > strings.Index(body, "A red square.") {
		t.Error("the branch left behind is shown before the current one")
	}
}

func TestPageWithoutBranchesHasNoOutline(t *testing.T) {
	s := session.InMemory(t.TempDir())
	s.AppendMessage(provider.UserText("hello", 1))
	s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("hi")}})
	var buf bytes.Buffer
	if err := HTML(&buf, s, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `<nav class="tree">`) || !strings.Contains(buf.String(), "<title>pi session ") {
		t.Errorf("page:\n%s", buf.String())
	}
}

func TestImagesAreEmbeddedOnlyWhenTheyAreImages(t *testing.T) {
	for _, b := range []provider.Block{
		provider.Image("PHNjcmlwdD4=", "text/html"),
		provider.Image(`AAA" onerror="x`, "image/png"),
	} {
		if p := imagePart(b); p.Kind == "image" {
			t.Errorf("%+v was embedded", b)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add("# t\n\n```go\nfunc x() {}\n```\n<script>alert(1)</script> [a](javascript:alert(1))")
	f.Fuzz(func(t *testing.T, s string) {
		out := string(markdown(s))
		if strings.Contains(strings.ToLower(out), "<script") || strings.Contains(strings.ToLower(out), `href="javascript:`) {
			t.Fatalf("markdown let through %q", out)
		}
		_ = highlight(s, "go")
	})
}

// TestStartingModelIsNoChange: the model a session starts with is named in the header, not
// drawn as a "Model changed" box before the first message; a switch later in the talk is.
func TestStartingModelIsNoChange(t *testing.T) {
	s := session.InMemory(t.TempDir())
	s.AppendModelChange("ollama", "qwen3:8b")
	s.AppendMessage(provider.UserText("hello", 1))
	s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Model: "qwen3:8b", Provider: "ollama", Content: []provider.Block{provider.Text("hi")}})
	s.AppendModelChange("ollama", "gemma3:4b")
	var buf bytes.Buffer
	if err := HTML(&buf, s, Options{Model: "ollama/gemma3:4b"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "Model changed to ollama/qwen3:8b") {
		t.Error("the starting model is drawn as a change")
	}
	if !strings.Contains(page, "Model changed to ollama/gemma3:4b") {
		t.Error("the later switch is not shown")
	}
}

// TestAttachedFileIsFoldedUnderItsName: a prompt's @file shows as the file's name and size,
// its text folded under them, not as a wall of inline text; the typed words follow as typed.
func TestAttachedFileIsFoldedUnderItsName(t *testing.T) {
	s := session.InMemory(t.TempDir())
	body := "package main\n\n// FILE-BODY\n" + strings.Repeat("x", 2100)
	s.AppendMessage(provider.UserText("<file name=\"/p/main.go\">\n"+body+"\n</file>\nexplain @main.go", 1))
	s.AppendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text("ok")}})
	var buf bytes.Buffer
	if err := HTML(&buf, s, Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, `<details class="result"><summary>[main.go, 2.1 KB] /p/main.go</summary><pre>package main`) {
		t.Errorf("the file is not folded under its name and size:\n%s", page)
	}
	if !strings.Contains(page, "<p>explain @main.go</p>") {
		t.Error("the typed text is not shown as typed")
	}
	if strings.Contains(page, "&lt;file name=") {
		t.Error("the file block is shown as raw text")
	}
}

// TestPageCountsAsSessionDoes: the page's totals are /session's count of the whole file
// (session.BranchAndFileStats), and say that they cover every branch.
func TestPageCountsAsSessionDoes(t *testing.T) {
	s := testSession(t)
	branch, file, err := session.BranchAndFileStats(s)
	if err != nil {
		t.Fatal(err)
	}
	if branch.TotalMessages != 6 || file.TotalMessages != 8 || file.AssistantMessages != 4 {
		t.Fatalf("branch %d messages, file %d (%d replies): want 6, 8 (4)", branch.TotalMessages, file.TotalMessages, file.AssistantMessages)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, s, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("%d in the whole file, every branch (%d user, %d assistant, %d tool calls)", file.TotalMessages,
			file.UserMessages, file.AssistantMessages, file.ToolCalls),
		fmt.Sprintf("%s (%s in, %s out", count(file.Tokens.Total), count(file.Tokens.Input), count(file.Tokens.Output)),
		fmt.Sprintf("$%.4f, every branch", file.Cost),
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
