package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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

// These tests run the pi binary against a real Ollama server (built by .ci/build-ollama.sh and
// named by PI_OLLAMA_BIN) serving a tiny scripted model; they skip when it is not configured.

const e2eModel = "pi-scripted"

func startOllama(t *testing.T, spec ollamatest.ModelSpec) *ollamatest.Server {
	t.Helper()
	s := ollamatest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := s.CreateModel(ctx, e2eModel, spec); err != nil {
		t.Fatal(err)
	}
	return s
}

// e2eProject makes a project folder and a PI_HOME whose pi.toml points three providers, one per
// wire format, at the server, and a fourth (plain: native, no recovery of text tool calls).
func e2eProject(t *testing.T, s *ollamatest.Server, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, ".pihome")
	os.MkdirAll(home, 0o755)
	toml := fmt.Sprintf(`[providers.native]
kind = "ollama"
base_url = "%[1]s"

[providers.compat]
kind = "openai"
base_url = "%[1]s/v1"

[providers.plain]
kind = "ollama"
base_url = "%[1]s"
text_tool_calls = false

[providers.messages]
kind = "anthropic"
base_url = "%[1]s"
api_key_env = "PI_E2E_KEY"
`, s.BaseURL)
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPiReadRoundTripOnRealOllama(t *testing.T) {
	s := startOllama(t, ollamatest.ReadRoundTrip())
	bin := buildPi(t)
	t.Setenv("PI_E2E_KEY", "not-needed-by-ollama")
	for _, prov := range []string{"native", "compat", "messages"} {
		t.Run(prov, func(t *testing.T) {
			dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
			r := runPi(t, bin, dir, "--model", prov+"/"+e2eModel, "-p", "Read the README.")
			if r.code != 0 || strings.TrimSpace(r.stdout) != ollamatest.FinalAnswer {
				t.Fatalf("code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
			}
			msgs := sessionMessages(t, dir)
			if got := strings.Join(pitest.Roles(msgs), ","); got != "user,assistant,toolResult,assistant" {
				t.Fatalf("session messages %s", got)
			}
			call := msgs[1].ToolCalls()
			if len(call) != 1 || call[0].Name != "read" || call[0].Arguments["path"] != ollamatest.ReadPath ||
				msgs[1].Provider != prov || msgs[1].Usage.Input == 0 {
				t.Fatalf("assistant tool call %+v (provider %q, usage %+v)", msgs[1].Content, msgs[1].Provider, msgs[1].Usage)
			}
			if msgs[2].IsError || strings.TrimSpace(msgs[2].TextContent()) != "hello" || msgs[2].ToolCallID != call[0].ID {
				t.Fatalf("tool result %+v", msgs[2])
			}
			if msgs[3].TextContent() != ollamatest.FinalAnswer || msgs[3].StopReason != provider.StopStop {
				t.Fatalf("final %+v", msgs[3])
			}
		})
	}
}

// TestPiPromptPrefixStableOverTenTurns checks the prompt cache: each request of a 10-call tool
// loop must re-use the whole previous prompt and evaluate only what was appended.
func TestPiPromptPrefixStableOverTenTurns(t *testing.T) {
	files := map[string]string{}
	var calls []map[string]any
	for i := 1; i <= 10; i++ {
		name := fmt.Sprintf("part%d.txt", i)
		files[name] = fmt.Sprintf("part %d\n", i)
		calls = append(calls, map[string]any{"path": name})
	}
	s := startOllama(t, ollamatest.ToolLoop("read", calls, "All ten parts read."))
	bin := buildPi(t)
	dir := e2eProject(t, s, files)
	r := runPi(t, bin, dir, "--model", "native/"+e2eModel, "-p", "Read every part.")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "All ten parts read." {
		t.Fatalf("code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	loads, err := s.CacheLoads()
	if err != nil {
		t.Fatal(err)
	}
	if len(loads) != 11 {
		t.Fatalf("%d model calls logged, want 11: %+v", len(loads), loads)
	}
	for i := 1; i < len(loads); i++ {
		prev, cur := loads[i-1], loads[i]
		t.Logf("turn %d: prompt %d tokens, %d from cache, %d evaluated", i+1, cur.Prompt, cur.Used, cur.Remaining)
		if cur.Used != prev.Prompt || cur.Remaining != cur.Prompt-prev.Prompt {
			t.Errorf("turn %d re-processed more than it added: %+v after %+v", i+1, cur, prev)
		}
	}
}

// sessionMessages reads the messages of the one session file under dir's PI_HOME.
func sessionMessages(t *testing.T, dir string) []provider.Message {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, ".pihome", "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file, found %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var msgs []provider.Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Type    string           `json:"type"`
			Message provider.Message `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("session line %q: %v", sc.Text(), err)
		}
		if e.Type == "message" {
			msgs = append(msgs, e.Message)
		}
	}
	return msgs
}

// TestPiRecoversTextToolCallsOnRealOllama runs a model whose template does not parse tool calls:
// Ollama hands the <tool_call> markup back as text, pi recovers the read call from it, runs it,
// and the task completes, through the native API and the OpenAI-compatible one.
func TestPiRecoversTextToolCallsOnRealOllama(t *testing.T) {
	spec := ollamatest.ReadRoundTrip()
	spec.TextToolCalls = true
	s := startOllama(t, spec)
	bin := buildPi(t)
	for _, prov := range []string{"native", "compat"} {
		t.Run(prov, func(t *testing.T) {
			dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
			r := runPi(t, bin, dir, "--model", prov+"/"+e2eModel, "-p", "Read the README.")
			if r.code != 0 || strings.TrimSpace(r.stdout) != ollamatest.FinalAnswer {
				t.Fatalf("code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
			}
			msgs := sessionMessages(t, dir)
			if got := strings.Join(pitest.Roles(msgs), ","); got != "user,assistant,toolResult,assistant" {
				t.Fatalf("session messages %s", got)
			}
			call := msgs[1].ToolCalls()
			if len(call) != 1 || call[0].Name != "read" || call[0].Arguments["path"] != ollamatest.ReadPath ||
				strings.Contains(msgs[1].TextContent(), "<tool_call>") || textcalls.Recovered(&msgs[1]) != 1 {
				t.Fatalf("assistant %+v details %s", msgs[1].Content, msgs[1].Details)
			}
			if msgs[2].IsError || strings.TrimSpace(msgs[2].TextContent()) != "hello" {
				t.Fatalf("tool result %+v", msgs[2])
			}
		})
	}
	t.Run("recovery off", func(t *testing.T) {
		dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
		r := runPi(t, bin, dir, "--model", "plain/"+e2eModel, "-p", "Read the README.")
		if r.code != 0 || !strings.Contains(r.stdout, "<tool_call>") {
			t.Fatalf("the server did not send the call as text: code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
		}
	})
}

// TestPiTakesTheWindowOllamaGives: a model trained on 4,096 tokens, configured for 8,192, runs
// at 4,096 on a real server; pi says so once and plans with 4,096.
func TestPiTakesTheWindowOllamaGives(t *testing.T) {
	spec := ollamatest.ReadRoundTrip()
	spec.ContextLength = 4096
	s := startOllama(t, spec)
	dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
	toml := fmt.Sprintf("[providers.small]\nkind = \"ollama\"\nbase_url = %q\n[[providers.small.models]]\nid = %q\ncontext_window = 8192\n",
		s.BaseURL, e2eModel)
	if err := os.WriteFile(filepath.Join(dir, ".pihome", "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPi(t, buildPi(t), dir, "--model", "small/"+e2eModel, "-p", "Read the README.")
	want := "the window is 4096 tokens, not 8192: the model was trained on 4096 tokens"
	if r.code != 0 || strings.Count(r.stderr, want) != 1 || strings.TrimSpace(r.stdout) != ollamatest.FinalAnswer {
		t.Fatalf("code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestPiGivesToolsAsTextToModelsWithoutThem: a model whose template has no tools at all (Ollama
// reports no tools capability and would refuse the tools field) gets them described in the
// system prompt; its <tool_call> reply runs read, the result comes back as a user message, and
// the task completes.
func TestPiGivesToolsAsTextToModelsWithoutThem(t *testing.T) {
	s := startOllama(t, ollamatest.ModelSpec{NoTools: true, Rules: []ollamatest.Rule{
		{When: ollamatest.When{LastRole: "user", LastPrefix: "<tool_response"}, Reply: ollamatest.FinalAnswer},
		{When: ollamatest.When{LastRole: "user"}, Reply: ollamatest.ToolCall("read", map[string]any{"path": ollamatest.ReadPath})},
	}})
	dir := e2eProject(t, s, map[string]string{ollamatest.ReadPath: "hello\n"})
	r := runPi(t, buildPi(t), dir, "--model", "native/"+e2eModel, "-p", "Read the README.")
	if r.code != 0 || strings.TrimSpace(r.stdout) != ollamatest.FinalAnswer {
		t.Fatalf("code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	msgs := sessionMessages(t, dir)
	if len(msgs) != 4 || textcalls.Recovered(&msgs[1]) != 1 || strings.TrimSpace(msgs[2].TextContent()) != "hello" {
		t.Fatalf("session %+v", msgs)
	}
}
