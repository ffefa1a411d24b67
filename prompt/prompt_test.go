package prompt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/tools"
)

func infoTool(name, snippet string, guidelines ...string) tools.Tool {
	return &tools.Func{Spec: tools.Info{Name: name, Description: name + " tool\nmore detail", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`),
		Snippet: snippet, Guidelines: guidelines}}
}

func TestBuild(t *testing.T) {
	cases := []struct {
		name      string
		parts     Parts
		contains  []string
		forbidden []string
	}{
		{"no tools", Parts{}, []string{basePrompt, "Tools: (none)\n", "- Be brief."}, nil},
		{"a tool without a snippet is not listed: its definition describes it",
			Parts{Tools: []tools.Tool{infoTool("deploy", ""), infoTool("ship", "ships it")}}, []string{"\n\nTools:\n- ship: ships it\n\nGuidelines:"},
			[]string{"deploy", "more detail"}},
		{"built-in tools only: no list",
			Parts{Tools: []tools.Tool{infoTool("read", "")}}, []string{basePrompt + "\n\nGuidelines:"}, []string{"Tools:"}},
		{"guidelines deduplicated and trimmed",
			Parts{Tools: []tools.Tool{infoTool("a", "does a", "  Check twice.  ", "Use a."), infoTool("b", "does b", "Check twice.")}},
			[]string{"- a: does a\n- b: does b\n", "Guidelines:\n- Check twice.\n- Use a.\n- Be brief."}, []string{"  Check twice.  "}},
		{"custom body replaces the default text and lists",
			Parts{Body: "You are a reviewer.", Tools: []tools.Tool{infoTool("a", "does a")}},
			[]string{"You are a reviewer."}, []string{basePrompt, "Tools:"}},
		{"append text follows the body",
			Parts{Body: "Base.", Append: []string{"", "Always answer in French."}}, []string{"Base.\n\nAlways answer in French."}, nil},
		{"context files in order",
			Parts{ContextFiles: []ContextFile{{"/home/u/.pi/AGENTS.md", "global rules"}, {"/proj/AGENTS.md", "project rules"}}},
			[]string{"## /home/u/.pi/AGENTS.md\n\nglobal rules\n\n## /proj/AGENTS.md\n\nproject rules"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Build(tc.parts)
			for _, want := range tc.contains {
				if !strings.Contains(got, want) {
					t.Errorf("prompt lacks %q:\n%s", want, got)
				}
			}
			for _, bad := range tc.forbidden {
				if strings.Contains(got, bad) {
					t.Errorf("prompt has %q:\n%s", bad, got)
				}
			}
			if again := Build(tc.parts); again != got {
				t.Errorf("same inputs gave different bytes")
			}
			if strings.Contains(got, time.Now().Format("2006-01-02")) {
				t.Errorf("the date must not be in the system prompt")
			}
		})
	}
}

func TestContextFilesFromRootDownToCwd(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	sub := filepath.Join(proj, "sub")
	for _, d := range []string{home, sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "AGENTS.md"), "global")
	write(filepath.Join(proj, "CLAUDE.md"), "project claude")
	write(filepath.Join(sub, "AGENTS.md"), "sub agents")
	write(filepath.Join(sub, "CLAUDE.md"), "ignored: AGENTS.md wins in a directory")
	files, err := LoadContextFiles(home, sub)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Content)
	}
	if want := []string{"global", "project claude", "sub agents"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("context files %v, want %v", got, want)
	}
}

// TestPromptFilesProjectBeforeGlobal: a trusted project's SYSTEM.md replaces the prompt's body
// (the user's too); an untrusted project's is added after pi's prompt, as its AGENTS.md is,
// and the user's SYSTEM.md, or pi's own text, stays the body.
func TestPromptFilesProjectBeforeGlobal(t *testing.T) {
	cases := []struct {
		name               string
		trusted, userFile  bool
		wantBody, wantApp  string
		wantDemoted        bool
		wantPromptStarting string
	}{
		{"trusted", true, true, "project system", "global append", false, "project system\n\nglobal append"},
		{"untrusted", false, true, "global system", "project system\n\nglobal append", true, "global system\n\nproject system\n\nglobal append"},
		{"untrusted, no SYSTEM.md of the user's", false, false, "", "project system\n\nglobal append", true, basePrompt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, cwd := t.TempDir(), t.TempDir()
			os.MkdirAll(filepath.Join(cwd, ".pi"), 0o755)
			if tc.userFile {
				os.WriteFile(filepath.Join(home, "SYSTEM.md"), []byte("global system"), 0o644)
			}
			os.WriteFile(filepath.Join(cwd, ".pi", "SYSTEM.md"), []byte("project system"), 0o644)
			os.WriteFile(filepath.Join(home, "APPEND_SYSTEM.md"), []byte("global append"), 0o644)
			f, err := LoadPromptFiles(home, cwd, tc.trusted)
			if err != nil || f.Body != tc.wantBody || f.Append != tc.wantApp || (f.Demoted != "") != tc.wantDemoted {
				t.Fatalf("files %+v err %v", f, err)
			}
			got := Build(Parts{Body: f.Body, Append: []string{f.Append}})
			if !strings.HasPrefix(got, tc.wantPromptStarting) || !strings.HasSuffix(got, "project system\n\nglobal append") {
				t.Fatalf("prompt %q", got)
			}
		})
	}
}

func TestContextBlockOnlyOpensTheConversation(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	first := FirstUserMessage("fix it", nil, true, "/work/proj", now)
	if len(first.Content) != 2 || !strings.Contains(first.Content[0].Text, "Date: 2026-11-30\nWorking directory: /work/proj") ||
		first.Content[1].Text != "fix it" {
		t.Fatalf("first message %+v", first.Content)
	}
	later := FirstUserMessage("and this", nil, false, "/work/proj", now)
	if len(later.Content) != 1 || !later.StringContent {
		t.Fatalf("later message %+v", later)
	}
}

// TestDefaultPromptSize keeps the first request small: the default system prompt plus the
// four default tools' definitions, as a model server receives them, must stay under 2 KB.
func TestDefaultPromptSize(t *testing.T) {
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var active []tools.Tool
	var defs []provider.ToolDef
	for _, name := range tools.DefaultNames() {
		tool, err := tools.New(name, env)
		if err != nil {
			t.Fatal(err)
		}
		active = append(active, tool)
		defs = append(defs, tool.Info().Def())
	}
	prompt := Build(Parts{Tools: active})
	defsJSON, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	total := len(prompt) + len(defsJSON)
	t.Logf("system prompt %d B + tool definitions %d B = %d B", len(prompt), len(defsJSON), total)
	if total >= 2048 {
		t.Fatalf("default prompt is %d bytes, budget 2048:\n%s\n%s", total, prompt, defsJSON)
	}
}
