package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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
	return &tools.Func{Spec: tools.Info{Name: name, Description: name + " tool\nmore detail", Parameters: intSchema,
		Snippet: snippet, Guidelines: guidelines}}
}

func TestBuildSystemPrompt(t *testing.T) {
	cases := []struct {
		name      string
		parts     PromptParts
		contains  []string
		forbidden []string
	}{
		{"no tools", PromptParts{}, []string{basePrompt, "Tools: (none)\n", "- Be brief."}, nil},
		{"a tool without a snippet is not listed: its definition describes it",
			PromptParts{Tools: []tools.Tool{infoTool("deploy", ""), infoTool("ship", "ships it")}}, []string{"\n\nTools:\n- ship: ships it\n\nGuidelines:"},
			[]string{"deploy", "more detail"}},
		{"built-in tools only: no list",
			PromptParts{Tools: []tools.Tool{infoTool("read", "")}}, []string{basePrompt + "\n\nGuidelines:"}, []string{"Tools:"}},
		{"guidelines deduplicated and trimmed",
			PromptParts{Tools: []tools.Tool{infoTool("a", "does a", "  Check twice.  ", "Use a."), infoTool("b", "does b", "Check twice.")}},
			[]string{"- a: does a\n- b: does b\n", "Guidelines:\n- Check twice.\n- Use a.\n- Be brief."}, []string{"  Check twice.  "}},
		{"custom body replaces the default text and lists",
			PromptParts{Body: "You are a reviewer.", Tools: []tools.Tool{infoTool("a", "does a")}},
			[]string{"You are a reviewer."}, []string{basePrompt, "Tools:"}},
		{"append text follows the body",
			PromptParts{Body: "Base.", Append: []string{"", "Always answer in French."}}, []string{"Base.\n\nAlways answer in French."}, nil},
		{"context files in order",
			PromptParts{ContextFiles: []ContextFile{{"/home/u/.pi/AGENTS.md", "global rules"}, {"/proj/AGENTS.md", "project rules"}}},
			[]string{"## /home/u/.pi/AGENTS.md\n\nglobal rules\n\n## /proj/AGENTS.md\n\nproject rules"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := BuildSystemPrompt(tc.parts)
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
			if again := BuildSystemPrompt(tc.parts); again != got {
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

func TestPromptFilesProjectBeforeGlobal(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".pi"), 0o755)
	os.WriteFile(filepath.Join(home, "SYSTEM.md"), []byte("global system"), 0o644)
	os.WriteFile(filepath.Join(cwd, ".pi", "SYSTEM.md"), []byte("project system"), 0o644)
	os.WriteFile(filepath.Join(home, "APPEND_SYSTEM.md"), []byte("global append"), 0o644)
	body, appendText, err := LoadPromptFiles(home, cwd)
	if err != nil || body != "project system" || appendText != "global append" {
		t.Fatalf("body %q append %q err %v", body, appendText, err)
	}
	got := BuildSystemPrompt(PromptParts{Body: body, Append: []string{appendText}})
	if got != "project system\n\nglobal append" {
		t.Fatalf("prompt %q", got)
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
	prompt := BuildSystemPrompt(PromptParts{Tools: active})
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

// TestFirstRequestBodySize runs pi -p with a one-line prompt and the four default tools against
// a fake OpenAI-compatible server and measures the whole request body it receives (the working
// directory in the context block counted as "/home/user/project"): it must stay at or under
// 2,400 bytes.
func TestFirstRequestBodySize(t *testing.T) {
	bodies := make(chan []byte, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r) // pi asks whether a local /v1 server is Ollama's
			return
		}
		body, _ := io.ReadAll(r.Body)
		bodies <- body
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	home := filepath.Join(dir, ".pihome")
	os.MkdirAll(home, 0o755)
	toml := "[providers.local]\nkind = \"openai\"\nbase_url = \"" + srv.URL + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPi(t, buildPi(t), dir, "--model", "local/m", "--no-session", "-p", "What does main.go do?")
	if r.code != 0 {
		t.Fatalf("code %d\nstderr %s", r.code, r.stderr)
	}
	body := <-bodies
	cwd, _ := filepath.EvalSymlinks(dir)
	body = bytes.ReplaceAll(body, []byte(cwd), []byte("/home/user/project"))
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Tools) != 4 || !bytes.Contains(body, []byte("/home/user/project")) {
		t.Fatalf("request %s (%v)", body, err)
	}
	toolBytes := 0
	for _, tl := range req.Tools {
		toolBytes += len(tl)
	}
	t.Logf("first request body: %d B (%d B of tools)", len(body), toolBytes)
	if len(body) > 2400 {
		t.Errorf("first request body is %d B, budget 2400:\n%s", len(body), body)
	}
}
