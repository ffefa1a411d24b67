package lua

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// expandTemplate writes body as .pi/prompts/<name>.md, starts a runtime and sends "/name args".
func expandAll(t *testing.T, cases map[string]string, inputs map[string]string) (map[string]string, *env) {
	t.Helper()
	e := newEnv(t)
	for name, body := range cases {
		e.write(t, filepath.Join(".pi", "prompts", name+".md"), body)
	}
	r := e.start(t, "")
	out := map[string]string{}
	for name, in := range inputs {
		out[name] = r.Input(ctxT(t), in, nil, "interactive").Text
	}
	return out, e
}

func TestTemplateSubstitution(t *testing.T) {
	// pi's substituteArgs cases, driven through "/name args" as a user types them.
	tests := []struct {
		name, template, args, want string
	}{
		{"arguments", "Test: $ARGUMENTS", "a b c", "Test: a b c"},
		{"at", "Test: $@", "a b c", "Test: a b c"},
		{"no recursion arguments", "$ARGUMENTS", "$1 $ARGUMENTS", "$1 $ARGUMENTS"},
		{"no recursion at", "$@", "$100 $1", "$100 $1"},
		{"no recursion positional", "$1 $2", "$ARGUMENTS $@", "$ARGUMENTS $@"},
		{"no recursion slice", "${@:1}", "${@:2} test", "${@:2} test"},
		{"mixed", "$1: $ARGUMENTS", "prefix a b", "prefix: prefix a b"},
		{"empty arguments", "Test: $ARGUMENTS", "", "Test: "},
		{"empty positional", "Test: $1 end", "", "Test:  end"},
		{"repeated", "$@ and $ARGUMENTS", "a b", "a b and a b"},
		{"out of range", "$1 $2 $3 $4 $5|", "a b", "a b   |"},
		{"unicode", "$ARGUMENTS", "日本語 🎉 café", "日本語 🎉 café"},
		{"unicode positional", "<$2>", "日本語 🎉 café", "<🎉>"},
		{"consecutive", "$1$2", "a b", "ab"},
		{"quoted", "[$1][$2]", `"first arg" 'second arg'`, "[first arg][second arg]"},
		{"quoted arguments", "$ARGUMENTS", `"first arg" "second arg"`, "first arg second arg"},
		{"zero", "[$0]", "a b", "[]"},
		{"decimal", "$1.5", "a", "a.5"},
		{"part of word", "pre$ARGUMENTS", "a b", "prea b"},
		{"non matching", "$A $$ $ $ARGS", "a", "$A $$ $ $ARGS"},
		{"case sensitive", "$arguments $ARGUMENTS", "a b", "$arguments a b"},
		{"multi digit", "$10 $12", "v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11 v12", "v10 v12"},
		{"backslash literal", `Price: \$100.`, "", `Price: \.`},
		{"slice", "${@:2}", "a b c d", "b c d"},
		{"slice length", "${@:2:2}", "a b c d", "b c"},
		{"slice out of range", "[${@:5}][${@:10:5}]", "a b", "[][]"},
		{"slice zero length", "[${@:2:0}]", "a b c", "[]"},
		{"slice long", "${@:2:99}", "a b c", "b c"},
		{"slice zero start", "${@:0}", "a b c", "a b c"},
		{"slice and all", "${@:2} vs $@", "a b c", "b c vs a b c"},
		{"slice unicode", "${@:1}", "日本語 🎉 café", "日本語 🎉 café"},
		{"combined", "Run $1 on ${@:2:2}, then $@", "eslint f1 f2 f3", "Run eslint on f1 f2, then eslint f1 f2 f3"},
		{"tabs and spaces", "[$1][$2][$3]", "a\t b   c  ", "[a][b][c]"},
		{"empty quotes skipped", "[$1][$2]", `"" " "`, "[ ][]"},
		{"no escapes", "[$1]", `"quoted \"text\""`, `[quoted \text\]`},
		{"newline in quotes", "[$1][$2]", "\"line1\nline2\" second", "[line1\nline2][second]"},
		{"plain", "Just plain text", "a b", "Just plain text"},
	}
	cases, inputs := map[string]string{}, map[string]string{}
	for i, tc := range tests {
		name := fmt.Sprintf("t%d", i)
		cases[name] = tc.template
		inputs[name] = strings.TrimRight("/"+name+" "+tc.args, " ")
	}
	out, e := expandAll(t, cases, inputs)
	for i, tc := range tests {
		if got := out[fmt.Sprintf("t%d", i)]; got != tc.want {
			t.Errorf("%s: %q with %q = %q, want %q", tc.name, tc.template, tc.args, got, tc.want)
		}
	}
	e.noErrors(t)
}

func TestTemplateFrontmatterAndLookup(t *testing.T) {
	e := newEnv(t)
	e.write(t, ".pi/prompts/review.md", "---\ndescription: Review a file\nargument-hint: <file>\n---\n\nReview $1 carefully.\n")
	e.write(t, ".pi/prompts/plain.md", "\n  First line of the prompt, which is rather long and goes on past sixty characters\nsecond\n")
	e.write(t, filepath.Join(e.home, "prompts", "review.md"), "---\ndescription: global review\n---\nGlobal $1")
	r := e.start(t, "")
	cmds := map[string]Command{}
	for _, c := range r.Commands() {
		cmds[c.Name] = c
	}
	if c := cmds["review"]; c.Description != "global review" || c.Runnable() {
		t.Errorf("review command = %+v; want the $PI_HOME one (pi keeps the first), listing only", c)
	}
	if c := cmds["plain"]; c.Description != "First line of the prompt, which is rather long and goes on p..." {
		t.Errorf("plain description = %q", c.Description)
	}
	if _, ok := e.noticeContaining("already defined"); !ok {
		t.Errorf("no collision warning in %v", e.notices())
	}
	for in, want := range map[string]string{
		"/review main.go":   "Global main.go",
		"/unknown a b":      "/unknown a b",
		"/plain":            "First line of the prompt, which is rather long and goes on past sixty characters\nsecond",
		"not a /review x":   "not a /review x",
		"/reviewer main.go": "/reviewer main.go",
	} {
		if got := r.Input(ctxT(t), in, nil, "interactive").Text; got != want {
			t.Errorf("Input(%q) = %q, want %q", in, got, want)
		}
	}
	e2 := newEnv(t)
	e2.write(t, ".pi/prompts/review.md", "---\ndescription: Review a file\nargument-hint: <file>\n---\n\nReview $1 carefully.\n")
	r2 := e2.start(t, "")
	if c := r2.Commands()[0]; c.ArgumentHint != "<file>" || c.Description != "Review a file" {
		t.Errorf("command = %+v", c)
	}
	if got := r2.Input(ctxT(t), "/review a.go", nil, "interactive").Text; got != "Review a.go carefully." {
		t.Errorf("got %q", got)
	}
}
