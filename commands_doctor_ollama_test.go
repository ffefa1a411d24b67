package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/config"
	"pi/doctor"
	"pi/internal/ollamatest"
)

// pi doctor against a real Ollama server with three tiny models: one whose template parses
// tool calls, one whose template does not (the calls come back as text), and one with no
// tools in its template at all (pi sends the tools as text).

// doctorModels creates the three models on s and returns their names by verdict.
func doctorModels(t *testing.T, s *ollamatest.Server) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	text := ollamatest.ReadRoundTrip()
	text.TextToolCalls = true
	models := map[string]ollamatest.ModelSpec{
		"pi-parses": ollamatest.ReadRoundTrip(),
		"pi-text":   text,
		"pi-notools": {NoTools: true, Rules: []ollamatest.Rule{{When: ollamatest.When{LastRole: "user", LastPrefix: "Read the file"},
			Reply: ollamatest.ToolCall("read", map[string]any{"path": ollamatest.ReadPath})}}},
	}
	for name, spec := range models {
		if err := s.CreateModel(ctx, name, spec); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{doctor.CallsStructured: "pi-parses", doctor.CallsText: "pi-text", doctor.CallsToolsText: "pi-notools"}
}

// doctorHome is a project folder whose PI_HOME's pi.toml names the server as provider "local".
func doctorHome(t *testing.T, s *ollamatest.Server) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".pihome"), 0o755)
	toml := fmt.Sprintf("[providers.local]\nkind = \"ollama\"\nbase_url = %q\n", s.BaseURL)
	if err := os.WriteFile(filepath.Join(dir, ".pihome", "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// doctorJSON decodes --json's output, and checks that every finding has every field, so a
// script can rely on them.
func doctorJSON(t *testing.T, r runResult) []doctor.Report {
	t.Helper()
	var reps []doctor.Report
	var raw []map[string]map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &reps); err != nil {
		t.Fatalf("--json: %v (code %d)\nstdout %s\nstderr %s", err, r.code, r.stdout, r.stderr)
	}
	json.Unmarshal([]byte(r.stdout), &raw) // the findings' objects; the top-level strings fail to decode and stay nil
	fields := map[string][]string{
		"window": {"server", "configured", "planned", "note"},
		"tools":  {"verdict", "shape", "toolsAsText", "note"},
		"speed":  {"prefillTokensPerSecond", "decodeTokensPerSecond", "note", "decodeNote"},
		"prefix": {"verdict", "turns", "note"},
		"vision": {"known", "yes", "note"},
		"eval":   {"ran", "passed", "runs", "note"},
	}
	for i := range raw {
		for finding, keys := range fields {
			for _, k := range keys {
				if _, ok := raw[i][finding][k]; !ok {
					t.Errorf("--json: %s has no %q: %v", finding, k, raw[i][finding])
				}
			}
		}
	}
	return reps
}

func TestDoctorVerdictsOnRealOllama(t *testing.T) {
	s := ollamatest.Start(t)
	models := doctorModels(t, s)
	dir := doctorHome(t, s)
	bin := buildPi(t)
	for verdict, model := range models {
		t.Run(model, func(t *testing.T) {
			args := []string{"doctor", "local/" + model, "--json"}
			if verdict != doctor.CallsStructured {
				args = append(args, "--no-eval") // the eval run is checked once, below
			}
			start := time.Now()
			r := runPi(t, bin, dir, args...)
			took := time.Since(start)
			reps := doctorJSON(t, r)
			if r.code != 0 || len(reps) != 1 {
				t.Fatalf("code %d, %d reports\nstderr %s", r.code, len(reps), r.stderr)
			}
			rep := reps[0]
			wantVerdict, asText := verdict, verdict == doctor.CallsToolsText
			if asText {
				wantVerdict = doctor.CallsText // the model writes the call; pi recovers it
			}
			if rep.Tools.Verdict != wantVerdict || rep.Tools.ToolsAsText != asText || verdict != doctor.CallsStructured && rep.Tools.Shape == "" {
				t.Errorf("tools %+v, want %s (tools as text %v)", rep.Tools, wantVerdict, asText)
			}
			if rep.Window.Server != 32768 || rep.Window.Configured != 0 || rep.Window.Planned == 0 {
				t.Errorf("window %+v, want the server's 32768 and nothing configured", rep.Window)
			}
			if rep.Speed.Prefill <= 0 || rep.Speed.Decode <= 0 || len(rep.Prefix.Turns) != 3 || rep.Prefix.Verdict == "" {
				t.Errorf("speed %+v prefix %+v", rep.Speed, rep.Prefix)
			}
			if !rep.Vision.Known || rep.Vision.Yes {
				t.Errorf("vision %+v, want known and no", rep.Vision)
			}
			if verdict == doctor.CallsStructured && (!rep.Eval.Ran || len(rep.Eval.Runs) != 3) {
				t.Errorf("eval %+v, want three runs", rep.Eval)
			}
			if !strings.Contains(rep.Suggest, "id = \""+model+"\"") || !strings.Contains(rep.Suggest, "context_window = 32768") {
				t.Errorf("suggested block:\n%s", rep.Suggest)
			}
			t.Logf("pi %s took %.1fs: tools %+v; speed %+v; prefix %s (%s)", strings.Join(args, " "), took.Seconds(),
				rep.Tools, rep.Speed, rep.Prefix.Verdict, rep.Prefix.Note)
		})
	}
}

// The table names every check, and --write adds the block the next run applies.
func TestDoctorWriteIsAppliedByTheNextRun(t *testing.T) {
	s := ollamatest.Start(t)
	models := doctorModels(t, s)
	dir := doctorHome(t, s)
	bin := buildPi(t)
	model := "local/" + models[doctor.CallsText]
	r := runPi(t, bin, dir, "doctor", model, "--no-eval", "--write")
	if r.code != 0 {
		t.Fatalf("code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"CHECK", "window", "tool calls", "prefill", "decode", "prefix re-use", "vision", "eval (3 tasks)",
		"Suggested for pi.toml:", "Added the block for " + model + " above to "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	home := filepath.Join(dir, ".pihome")
	cfg, err := config.Load(home, "", false)
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := cfg.ResolveModel(context.Background(), model)
	if err != nil || m.ContextWindow != 32768 || m.NoTextToolCalls || m.NoArgumentRetry {
		t.Fatalf("the written block is not applied: %+v, %v", m, err)
	}
	reps := doctorJSON(t, runPi(t, bin, dir, "doctor", model, "--no-eval", "--json"))
	if len(reps) != 1 || reps[0].Window.Configured != 32768 || !reps[0].Existing {
		t.Fatalf("the next run does not see the block: %+v", reps)
	}
	again := runPi(t, bin, dir, "doctor", model, "--no-eval", "--write")
	data, _ := os.ReadFile(filepath.Join(home, "pi.toml"))
	if again.code != 1 || !strings.Contains(again.stderr, "already describes "+model) || strings.Count(string(data), "[[providers.local.models]]") != 1 {
		t.Fatalf("a second --write: code %d, stderr %q\n%s", again.code, again.stderr, data)
	}
}

// With no server, pi doctor says so in one line.
func TestDoctorWithoutAServer(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".pihome"), 0o755)
	toml := "[providers.local]\nkind = \"ollama\"\nbase_url = \"http://127.0.0.1:9\"\n"
	os.WriteFile(filepath.Join(dir, ".pihome", "pi.toml"), []byte(toml), 0o644)
	bin := buildPi(t)
	for _, args := range [][]string{{"doctor", "local/qwen3:1.7b"}, {"doctor", "--all"}} {
		r := runPi(t, bin, dir, args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "pi doctor: ") || r.stdout != "" {
			t.Errorf("%v: code %d\nstdout %q\nstderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// Through Ollama's OpenAI-compatible endpoint the calls still come back structured, the window
// is what Ollama's runner holds (that endpoint cannot ask for more), and since it gives no
// timings, speed and prefix re-use are reported as not measured rather than guessed.
func TestDoctorThroughOllamasOpenAIEndpoint(t *testing.T) {
	s := ollamatest.Start(t)
	models := doctorModels(t, s)
	dir := doctorHome(t, s)
	toml := fmt.Sprintf("[providers.compat]\nkind = \"openai\"\nbase_url = %q\n", s.BaseURL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, ".pihome", "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPi(t, buildPi(t), dir, "doctor", "compat/"+models[doctor.CallsStructured], "--json", "--no-eval")
	reps := doctorJSON(t, r)
	if r.code != 0 || len(reps) != 1 {
		t.Fatalf("code %d\nstderr %s", r.code, r.stderr)
	}
	rep := reps[0]
	if rep.Tools.Verdict != doctor.CallsStructured || rep.Window.Server == 0 || !strings.Contains(rep.Window.Note, "runner") {
		t.Errorf("tools %+v window %+v", rep.Tools, rep.Window)
	}
	if rep.Speed.Prefill != 0 || !strings.Contains(rep.Speed.Note, "no timings") || rep.Prefix.Verdict != doctor.PrefixUnknown {
		t.Errorf("speed %+v prefix %+v", rep.Speed, rep.Prefix)
	}
	t.Logf("window %+v", rep.Window)
}
