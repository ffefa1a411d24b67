package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/internal/ollamatest"
	"pi/internal/pitest"
	"pi/provider"
	"pi/provider/textcalls"
)

// Real-server tests of two local-model rescues: a call written as Qwen3-Coder XML by a model
// whose template does not parse calls, and a call with invalid arguments asked for once more
// with the reply constrained to the tool's schema (Ollama's format). They skip without
// PI_OLLAMA_BIN, as every test that starts the server does.

// qwenCoderRead is the call Qwen3-Coder models write, with newlines as they emit them.
const qwenCoderRead = "<tool_call>\n<function=read>\n<parameter=path>\n" + ollamatest.ReadPath + "\n</parameter>\n</function>\n</tool_call>"

// rawChat sends one user message to the server's /api/chat and returns the reply's text as the
// server sends it, so a test can tell what the model wrote from what pi made of it.
func rawChat(t *testing.T, s *ollamatest.Server, withTools bool, user string) string {
	t.Helper()
	body := map[string]any{"model": e2eModel, "stream": false,
		"messages": []map[string]any{{"role": "user", "content": user}}}
	if withTools {
		body["tools"] = []map[string]any{{"type": "function", "function": map[string]any{"name": "read",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}}}
	}
	data, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+"/api/chat", bytes.NewReader(data))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply struct {
		Message struct {
			Content   string            `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || reply.Error != "" || len(reply.Message.ToolCalls) > 0 {
		t.Fatalf("raw chat: %v %q, tool calls %s", err, reply.Error, reply.Message.ToolCalls)
	}
	return reply.Message.Content
}

// TestPiRunsQwenCoderXMLCallsOnRealOllama: the model writes its read call as Qwen3-Coder XML
// (with and without the opening <tool_call>, which models often drop). With a template that
// renders tools but does not parse calls, Ollama hands the text back on both APIs; with one that
// has no tools at all, pi offers them in the system prompt (native only: Ollama's /v1 refuses
// tools for such a model). Either way pi must run the call and the task complete.
func TestPiRunsQwenCoderXMLCallsOnRealOllama(t *testing.T) {
	bin := buildPi(t)
	for _, shape := range []struct{ name, reply string }{
		{"tagged", qwenCoderRead},
		{"no opening tag", strings.TrimPrefix(qwenCoderRead, "<tool_call>\n")},
	} {
		for _, tmpl := range []struct {
			name      string
			spec      ollamatest.ModelSpec
			providers []string
		}{
			{"template without call parsing", ollamatest.ModelSpec{TextToolCalls: true, Rules: []ollamatest.Rule{
				{When: ollamatest.When{LastRole: "tool"}, Reply: ollamatest.FinalAnswer},
				{When: ollamatest.When{LastRole: "user"}, Reply: shape.reply}}}, []string{"native", "compat"}},
			{"template without tools", ollamatest.ModelSpec{NoTools: true, Rules: []ollamatest.Rule{
				{When: ollamatest.When{LastRole: "user", LastPrefix: "<tool_response"}, Reply: ollamatest.FinalAnswer},
				{When: ollamatest.When{LastRole: "user"}, Reply: shape.reply}}}, []string{"native"}},
		} {
			t.Run(shape.name+"/"+tmpl.name, func(t *testing.T) {
				start := time.Now()
				s := startOllama(t, tmpl.spec)
				if got := rawChat(t, s, !tmpl.spec.NoTools, "Read the README."); got != shape.reply {
					t.Fatalf("the model wrote %q, not the scripted call %q", got, shape.reply)
				}
				for _, prov := range tmpl.providers {
					runQwenCoderTask(t, bin, s, prov, shape.reply)
				}
				t.Logf("%v", time.Since(start).Round(time.Millisecond))
			})
		}
	}
}

func runQwenCoderTask(t *testing.T, bin string, s *ollamatest.Server, prov, reply string) {
	t.Helper()
	dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
	r := runPi(t, bin, dir, "--model", prov+"/"+e2eModel, "-p", "Read the README.")
	msgs := sessionMessages(t, dir)
	if len(msgs) == 2 && strings.Contains(msgs[1].TextContent(), "<function=read>") {
		t.Fatalf("%s: the model wrote the Qwen3-Coder call, but pi left it as text (this needs the Qwen3-Coder reader):\n%s",
			prov, msgs[1].TextContent())
	}
	if r.code != 0 || strings.TrimSpace(r.stdout) != ollamatest.FinalAnswer {
		t.Fatalf("%s: code %d\nstdout %q\nstderr %q", prov, r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(pitest.Roles(msgs), ","); got != "user,assistant,toolResult,assistant" {
		t.Fatalf("%s: session messages %s", prov, got)
	}
	call := msgs[1].ToolCalls()
	if len(call) != 1 || call[0].Name != "read" || call[0].Arguments["path"] != ollamatest.ReadPath ||
		strings.Contains(msgs[1].TextContent(), "<function=") || textcalls.Recovered(&msgs[1]) != 1 {
		t.Fatalf("%s: assistant %+v details %s", prov, msgs[1].Content, msgs[1].Details)
	}
	if msgs[2].IsError || strings.TrimSpace(msgs[2].TextContent()) != "hello" {
		t.Fatalf("%s: tool result %+v", prov, msgs[2])
	}
}

// retryPrefix is how pi's retry instruction starts (provider.ArgumentsRetryPrompt).
var retryPrefix = provider.ArgumentsRetryPrompt(&provider.ArgumentsRequest{Tool: provider.ToolDef{Name: "read"}})[:len(`Your call to the tool "read"`)]

// TestPiRetriesInvalidArgumentsWithFormatOnRealOllama: the model's read call has no path. pi
// asks once more with the reply constrained to read's schema; the template routes that
// instruction to a script that spells valid arguments, which the server's grammar lets
// through; the tool runs with them and the task completes, natively (format) and over /v1
// (response_format).
func TestPiRetriesInvalidArgumentsWithFormatOnRealOllama(t *testing.T) {
	args := fmt.Sprintf(`{"path": %q}`, ollamatest.ReadPath)
	s := startOllama(t, ollamatest.ModelSpec{Rules: []ollamatest.Rule{
		{When: ollamatest.When{LastRole: "tool"}, Reply: ollamatest.FinalAnswer},
		{When: ollamatest.When{LastRole: "user", LastPrefix: retryPrefix}, Reply: args},
		{When: ollamatest.When{LastRole: "user", ToolOffered: "read"}, Reply: ollamatest.ToolCall("read", map[string]any{})},
	}})
	bin := buildPi(t)
	for _, prov := range []string{"native", "compat"} {
		t.Run(prov, func(t *testing.T) {
			start := time.Now()
			dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
			r := runPi(t, bin, dir, "--model", prov+"/"+e2eModel, "-p", "Read the README.")
			if r.code != 0 || strings.TrimSpace(r.stdout) != ollamatest.FinalAnswer {
				t.Fatalf("code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
			}
			msgs := sessionMessages(t, dir)
			if got := strings.Join(pitest.Roles(msgs), ","); got != "user,assistant,toolResult,assistant" {
				t.Fatalf("session messages %s", got)
			}
			if call := msgs[1].ToolCalls(); len(call) != 1 || len(call[0].Arguments) != 0 {
				t.Fatalf("the transcript should keep the model's own call, read {}: %+v", msgs[1].Content)
			}
			var d struct {
				Retry struct {
					Original  map[string]any `json:"originalArguments"`
					Arguments map[string]any `json:"arguments"`
					Fixed     bool           `json:"fixed"`
					Error     string         `json:"error"`
					Ms        int64          `json:"durationMs"`
				} `json:"argumentRetry"`
			}
			json.Unmarshal(msgs[2].Details, &d)
			if msgs[2].IsError || strings.TrimSpace(msgs[2].TextContent()) != "hello" || !d.Retry.Fixed ||
				d.Retry.Arguments["path"] != ollamatest.ReadPath || d.Retry.Original == nil || !strings.Contains(d.Retry.Error, "path") {
				t.Fatalf("tool result %q, error %v, details %s", msgs[2].TextContent(), msgs[2].IsError, msgs[2].Details)
			}
			t.Logf("retry %d ms; whole run %v", d.Retry.Ms, time.Since(start).Round(time.Millisecond))
		})
	}
	t.Run("turned off", func(t *testing.T) {
		dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
		appendConfig(t, dir, fmt.Sprintf("\n[[providers.native.models]]\nid = %q\nargument_repair = false\n", e2eModel))
		runPi(t, bin, dir, "--model", "native/"+e2eModel, "-p", "Read the README.")
		msgs := sessionMessages(t, dir)
		if len(msgs) < 3 || !msgs[2].IsError || !strings.Contains(msgs[2].TextContent(), "path") || strings.Contains(string(msgs[2].Details), "argumentRetry") {
			t.Fatalf("with argument_repair = false the model should get the validation error: %+v", msgs)
		}
	})
}

// appendConfig adds text to the pi.toml that e2eProject wrote.
func appendConfig(t *testing.T, dir, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ".pihome", "pi.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
