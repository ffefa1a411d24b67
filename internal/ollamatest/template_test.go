package ollamatest

import (
	"encoding/json"
	"strings"
	"testing"
	"text/template"
)

// These types mirror the data Ollama passes to a chat template (template.Execute in
// github.com/ollama/ollama v0.17.4), so rule selection can be tested without a server.
type tmplMessage struct {
	Role, Content string
	ToolCalls     []tmplToolCall
}

type tmplToolCall struct{ Function tmplCallFunction }

type tmplCallFunction struct {
	Name      string
	Arguments tmplArgs
}

type tmplArgs map[string]any

func (a tmplArgs) String() string { b, _ := json.Marshal(map[string]any(a)); return string(b) }

type tmplTool struct {
	Type     string       `json:"type"`
	Function tmplFunction `json:"function"`
}

type tmplFunction struct {
	Name string `json:"name"`
}

func render(t *testing.T, tmpl string, msgs []tmplMessage, tools []tmplTool) string {
	t.Helper()
	funcs := template.FuncMap{"json": func(v any) string { b, _ := json.Marshal(v); return string(b) }}
	tp, err := template.New("").Option("missingkey=zero").Funcs(funcs).Parse(tmpl)
	if err != nil {
		t.Fatalf("parse template: %v\n%s", err, tmpl)
	}
	var b strings.Builder
	if err := tp.Execute(&b, map[string]any{"Messages": msgs, "Tools": tools}); err != nil {
		t.Fatalf("execute template: %v", err)
	}
	return b.String()
}

func TestTemplatePicksRule(t *testing.T) {
	spec := ModelSpec{Rules: []Rule{
		{When: When{LastRole: "tool", ToolResults: 2}, Reply: "two"},
		{When: When{LastRole: "tool"}, Reply: FinalAnswer},
		{When: When{LastRole: "user", LastPrefix: "Read", ToolOffered: "read"}, Reply: ToolCall("read", map[string]any{"path": ReadPath})},
		{When: When{UserTurns: 2}, Reply: "second turn"},
	}}
	m, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	read := []tmplTool{{Type: "function", Function: tmplFunction{Name: "read"}}}
	call := tmplMessage{Role: "assistant", ToolCalls: []tmplToolCall{{tmplCallFunction{"read", tmplArgs{"path": ReadPath}}}}}
	user := tmplMessage{Role: "user", Content: "Read the README."}
	tool := tmplMessage{Role: "tool", Content: "hello"}
	cases := []struct {
		name  string
		msgs  []tmplMessage
		tools []tmplTool
		want  string
	}{
		{"user with read", []tmplMessage{user}, read, "<|rule_2|>"},
		{"user without tools", []tmplMessage{user}, nil, "<|rule_fallback|>"},
		{"other prefix", []tmplMessage{{Role: "user", Content: "Re"}}, read, "<|rule_fallback|>"},
		{"one tool result", []tmplMessage{user, call, tool}, read, "<|rule_1|>"},
		{"two tool results", []tmplMessage{user, call, tool, call, tool}, read, "<|rule_0|>"},
		{"second user turn", []tmplMessage{user, {Role: "assistant", Content: "ok"}, {Role: "user", Content: "again"}}, nil, "<|rule_3|>"},
	}
	for _, c := range cases {
		got := render(t, m.Template, c.msgs, c.tools)
		if !strings.HasSuffix(got, "<|im_start|>assistant\n"+c.want) {
			t.Errorf("%s: prompt ends %q, want marker %s", c.name, got[max(0, len(got)-60):], c.want)
		}
	}
}

// TestTemplateExtendsPreviousPrompt checks that the prompt of the next turn starts with the
// previous prompt followed by exactly the text the model produced, so the server's prompt cache
// covers everything but the new messages.
func TestTemplateExtendsPreviousPrompt(t *testing.T) {
	m, err := Build(ReadRoundTrip())
	if err != nil {
		t.Fatal(err)
	}
	read := []tmplTool{{Type: "function", Function: tmplFunction{Name: "read"}}}
	system := tmplMessage{Role: "system", Content: "Be brief."}
	ask := tmplMessage{Role: "user", Content: "hi"}
	call := tmplMessage{Role: "assistant", ToolCalls: []tmplToolCall{{tmplCallFunction{"read", tmplArgs{"path": ReadPath}}}}}
	first := render(t, m.Template, []tmplMessage{system, ask}, read)
	second := render(t, m.Template, []tmplMessage{system, ask, call, {Role: "tool", Content: "hello"}}, read)
	want := first + ToolCall("read", map[string]any{"path": ReadPath}) + "<|im_end|>\n<|im_start|>tool\nhello<|im_end|>\n"
	if !strings.HasPrefix(second, want) {
		t.Errorf("second prompt:\n%s\nwant it to start with:\n%s", second, want)
	}
	if !strings.HasSuffix(first, "<|im_start|>assistant\n<|rule_1|>") || !strings.HasSuffix(second, "<|rule_0|>") {
		t.Errorf("markers: first ends %q, second ends %q", first[len(first)-30:], second[len(second)-30:])
	}
}

func TestResolvePieces(t *testing.T) {
	cases := []struct {
		in   [][]string
		want [][]string
	}{
		{[][]string{{"a", " b"}}, [][]string{{"a b"}}},
		{[][]string{{"<c>", " x"}, {"<c>", " y"}}, [][]string{{"<c> x"}, {"<c> y"}}},
		{[][]string{{"ab", " cd"}, {"ab"}}, [][]string{{"ab cd"}, {"ab"}}},
		{[][]string{{"ab", " cd"}, {"ab", " cd"}}, [][]string{{"ab", " cd"}, {"ab", " cd"}}},
	}
	for _, c := range cases {
		got, err := resolvePieces(c.in)
		if err != nil || !equalPieces(got, c.want) {
			t.Errorf("resolvePieces = %q, %v; want %q", got, err, c.want)
		}
	}
	if _, err := resolvePieces([][]string{{"x"}}); err == nil {
		t.Error("a one-byte reply was accepted")
	}
	if _, err := Build(ModelSpec{Rules: []Rule{{Reply: "a <|im_end|> b"}}}); err == nil {
		t.Error("a reply holding a control token was accepted")
	}
}

func equalPieces(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}
