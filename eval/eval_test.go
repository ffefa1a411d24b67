package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/provider"
)

// These tests drive eval with stand-ins for the agent; the root package's eval_test.go runs it
// with the real one.

// writeTask makes a task folder under dir: task.toml from the given body, the fixture files,
// and the script.
func writeTask(t *testing.T, dir, name, toml, script string, fixture map[string]string) {
	t.Helper()
	root := filepath.Join(dir, name)
	files := map[string]string{taskFileName: toml, scriptFileName: script}
	for rel, content := range fixture {
		files[filepath.Join(fixtureDirName, rel)] = content
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeDrive plays a model by the task's prompt, as a Drive sees it, and records the runs.
func fakeDrive(t *testing.T, runs *[]Run) Drive {
	return func(ctx context.Context, r Run) (Outcome, error) {
		*runs = append(*runs, r)
		msgs := []provider.Message{provider.UserText(r.Prompt, 0)}
		reply := func(m provider.Message, results ...provider.Message) bool {
			m.Role = provider.RoleAssistant
			msgs = append(msgs, m)
			msgs = append(msgs, results...)
			return r.OnTurn(&msgs[len(msgs)-1-len(results)], results)
		}
		out := func() Outcome { return Outcome{Messages: msgs, API: "fake", Wall: 3 * time.Millisecond} }
		switch r.Prompt {
		case "setup fails":
			return Outcome{}, &SetupError{Err: errors.New("unknown provider \"nope\""), Log: "warning: pi.toml:\n  line 3"}
		case "run fails":
			return out(), errors.New("session: disk full")
		case "silent":
			return out(), nil
		case "loop":
			call := provider.Message{Content: []provider.Block{provider.ToolCall("c", "bash", map[string]any{"command": "false"})}}
			for !reply(call, provider.Message{Role: provider.RoleToolResult, IsError: true}) {
			}
		case "model down":
			reply(provider.Message{StopReason: provider.StopError, ErrorMessage: "connection refused"})
		default:
			os.WriteFile(filepath.Join(r.Cwd, "done.txt"), []byte("yes\n"), 0o644)
			reply(provider.Message{Content: []provider.Block{provider.Text("Done.")}})
		}
		return out(), nil
	}
}

// TestDriveReasons: what a Drive reports becomes each run's verdict and reason, OnTurn prints
// the progress and enforces the turn budget, and the Run carries the task's settings.
func TestDriveReasons(t *testing.T) {
	dir := t.TempDir()
	writeTask(t, dir, "solves", "prompt = \"write done.txt\"\ncheck = \"grep -qx yes done.txt\"\ntools = [\"write\"]\n", "[]", map[string]string{"keep.txt": "x\n"})
	for name, prompt := range map[string]string{"setup": "setup fails", "run": "run fails", "silent": "silent", "model": "model down"} {
		writeTask(t, dir, name, "prompt = \""+prompt+"\"\ncheck = \"true\"\n", "[]", nil)
	}
	writeTask(t, dir, "loop", "prompt = \"loop\"\ncheck = \"true\"\nmax_turns = 3\n", "[]", nil)
	var runs []Run
	opts := Options{Drive: fakeDrive(t, &runs), CheckModel: func(context.Context, string) error {
		t.Error("the faux model is not checked")
		return nil
	}}
	out := filepath.Join(t.TempDir(), "results.json")
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"--model", "faux", "--tasks", dir, "--json", out}, &stdout, &stderr, opts); code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	rep, err := readReport(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"setup":  `setup: unknown provider "nope": warning: pi.toml:   line 3`,
		"run":    "run: session: disk full",
		"silent": "the model gave no reply",
		"model":  "model error: connection refused",
		"loop":   "turn budget of 3 used up while the model still called tools",
		"solves": "",
	}
	for _, r := range rep.Runs {
		if r.Reason != want[r.Task] || r.Pass != (r.Task == "solves") {
			t.Errorf("%s: pass %v, reason %q; want %q", r.Task, r.Pass, r.Reason, want[r.Task])
		}
		wall := int64(3) // the Outcome's
		if r.Task == "setup" {
			wall = 0
		}
		if r.WallMs != wall {
			t.Errorf("%s: wall %d ms, want %d", r.Task, r.WallMs, wall)
		}
	}
	if loop := tableRow(stdout.String(), "loop"); len(loop) < 4 || loop[2] != "3" || loop[3] != "3" {
		t.Errorf("loop row %v, want 3 turns and 3 tool errors", loop)
	}
	for _, s := range []string{"turn 3: bash (1 failed)", "turn 1: error", "turn 1: answer"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("progress lacks %q:\n%s", s, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "turn 4") {
		t.Errorf("the loop ran past its budget:\n%s", stderr.String())
	}
	i := slices.IndexFunc(runs, func(r Run) bool { return r.Prompt == "write done.txt" })
	r := runs[i]
	if r.Model != "faux" || r.FauxScript != filepath.Join(dir, "solves", "script.json") || !slices.Equal(r.Tools, []string{"write"}) ||
		filepath.Dir(r.Cwd) != filepath.Dir(r.SessionDir) || filepath.Base(r.Cwd) != "work" {
		t.Errorf("run %+v", r)
	}
}

// tableRow is the cells of the table row whose first cell is first.
func tableRow(table, first string) []string {
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == first {
			return f
		}
	}
	return nil
}

func TestEvalUsageErrors(t *testing.T) {
	down := Options{CheckModel: func(_ context.Context, model string) error {
		return errors.New("model " + model + ": dial tcp 127.0.0.1:1: connect: connection refused")
	}}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no model", nil, 2, "give --model"},
		{"zero runs", []string{"--model", "faux", "--runs", "0"}, 2, "--runs of at least 1"},
		{"compare one file", []string{"--compare", "a.json"}, 2, "give two result files"},
		{"bad filter", []string{"--model", "faux", "--run", "("}, 2, `--run "("`},
		{"no such tasks", []string{"--model", "faux", "--tasks", "/nonexistent/tasks"}, 2, "/nonexistent/tasks"},
		{"server down, said once", []string{"--model", "ollama/qwen3:1.7b"}, 1, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tc.args, &stdout, &stderr, down)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "pi eval:") > 1 {
				t.Fatalf("exit %d, stderr %q; want %d and one error containing %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

func TestCheckFailureReason(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"go test", "--- FAIL: TestHello (0.00s)\n    greet_test.go:7: Hello(Ada) = \"Helo, Ada!\"\nFAIL\nFAIL\tfixture\t0.004s\nFAIL\n",
			`check exited 1: --- FAIL: TestHello (0.00s) | greet_test.go:7: Hello(Ada) = "Helo, Ada!"`},
		{"compile error", "# fixture\n./a.go:3:2: undefined: x\nFAIL\tfixture [build failed]\n", "check exited 1: ./a.go:3:2: undefined: x"},
		{"silent", "", "check exited 1 without output; it was: grep -q x answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkFailure(1, "grep -q x answer", tc.out); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestLoadTaskRejects(t *testing.T) {
	for _, tc := range []struct {
		name, toml, want string
	}{
		{"no prompt", "check = \"true\"\n", "prompt is empty"},
		{"no check", "prompt = \"p\"\n", "check is empty"},
		{"misspelt key", "prompt = \"p\"\ncheck = \"true\"\nmax_turn = 3\n", `unknown key "max_turn"`},
		{"negative budget", "prompt = \"p\"\ncheck = \"true\"\ntimeout_seconds = -1\n", "must not be negative"},
		{"not toml", "prompt = \n", "task.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, taskFileName), []byte(tc.toml), 0o644)
			if _, err := loadTask(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestLoadTaskDefaults(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, taskFileName), []byte("prompt = \"p\"\ncheck = \"true\"\n"), 0o644)
	task, err := loadTask(dir)
	if err != nil {
		t.Fatal(err)
	}
	if task.MaxTurns != defaultMaxTurns || task.timeout() != defaultTimeout || task.Name != filepath.Base(dir) {
		t.Fatalf("defaults %+v", task)
	}
}

func TestCopyTreeRestoresGoModAndModes(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "fixture", "sub"), 0o755)
	os.WriteFile(filepath.Join(src, "fixture", fixtureGoMod), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(src, "fixture", "sub", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	dst := filepath.Join(t.TempDir(), "work")
	if err := copyTree(os.DirFS(src), fixtureDirName, dst); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dst, "go.mod")); err != nil || string(data) != "module x\n" {
		t.Fatalf("go.mod: %q, %v", data, err)
	}
	if info, err := os.Stat(filepath.Join(dst, "sub", "run.sh")); err != nil || info.Mode()&0o100 == 0 {
		t.Fatalf("run.sh lost its executable bit: %v %v", info, err)
	}
	if err := copyTree(os.DirFS(src), "missing", filepath.Join(t.TempDir(), "empty")); err != nil {
		t.Fatalf("a task without a fixture starts from an empty folder, got %v", err)
	}
}

func usage(in, out, cacheRead, cacheWrite int) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Usage: &provider.Usage{Input: in, Output: out, CacheRead: cacheRead, CacheWrite: cacheWrite}}
}

func TestReprocessed(t *testing.T) {
	for _, tc := range []struct {
		name, api  string
		replies    []provider.Message
		want       int
		wantSource string
	}{
		{"ollama grows", "ollama", []provider.Message{usage(1000, 20, 0, 0), usage(1100, 30, 0, 0), usage(1200, 10, 0, 0)}, 1000 + 80 + 70, "estimated"},
		{"ollama rewritten history counts nothing negative", "ollama", []provider.Message{usage(1000, 200, 0, 0), usage(1100, 5, 0, 0)}, 1000, "estimated"},
		{"ollama failed request skipped", "ollama", []provider.Message{usage(500, 10, 0, 0), {Role: provider.RoleAssistant}, usage(600, 10, 0, 0)}, 590, "estimated"},
		{"anthropic reported", "anthropic", []provider.Message{usage(300, 10, 0, 2000), usage(50, 10, 2300, 0)}, 2350, "reported"},
		{"openai with cache figures", "openai", []provider.Message{usage(900, 10, 0, 0), usage(120, 10, 900, 0)}, 1020, "reported"},
		{"openai without cache figures", "openai", []provider.Message{usage(900, 10, 0, 0), usage(1000, 10, 0, 0)}, -1, "n/a"},
		{"faux", "faux", []provider.Message{usage(900, 10, 0, 0)}, -1, "n/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, source := reprocessed(tc.api, tc.replies)
			if source != tc.wantSource || (got == nil) != (tc.want < 0) || got != nil && *got != tc.want {
				t.Fatalf("got %v %q, want %d %q", deref(got), source, tc.want, tc.wantSource)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestEvalCompare(t *testing.T) {
	dir := t.TempDir()
	n := 500
	a := &report{Model: "ollama/small", Started: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Runs: []runResult{
		{Task: "fix", Run: 1, Pass: false, Turns: 6, TokensIn: 4000, WallMs: 30000, Reason: "check exited 1"},
		{Task: "fix", Run: 2, Pass: true, Turns: 4, TokensIn: 3000, WallMs: 20000},
		{Task: "only-a", Run: 1, Pass: true, Turns: 2, WallMs: 1000},
	}}
	b := &report{Model: "ollama/big", Started: a.Started, Runs: []runResult{
		{Task: "fix", Run: 1, Pass: true, Turns: 3, TokensIn: 2500, WallMs: 60000, Reprocessed: &n},
		{Task: "fix", Run: 2, Pass: true, Turns: 3, TokensIn: 2500, WallMs: 60000, Reprocessed: &n},
	}}
	a.Totals, b.Totals = totalsOf(a.Runs), totalsOf(b.Runs)
	pa, pb := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if err := writeReport(pa, a); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(pb, b); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"--compare", pa, pb}, &stdout, &stderr, Options{}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := stdout.String()
	for _, want := range []string{"A: ollama/small", "B: ollama/big"} {
		if !strings.Contains(got, want) {
			t.Errorf("comparison lacks %q:\n%s", want, got)
		}
	}
	for _, row := range [][]string{
		{"fix", "1/2", "2/2", "5", "3", "3500", "2500", "25.0s", "60.0s", "B", "better"},
		{"only-a", "pass", "-", "2", "-"},
		{"TOTAL", "2/3", "2/2"},
	} {
		if have := tableRow(got, row[0]); len(have) < len(row) || !slices.Equal(have[:len(row)], row) {
			t.Errorf("comparison row %v, want it to start %v:\n%s", have, row, got)
		}
	}
	var bad bytes.Buffer
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644)
	if code := Main(context.Background(), []string{"--compare", pa, filepath.Join(dir, "bad.json")}, &stdout, &bad, Options{}); code != 1 ||
		!strings.Contains(bad.String(), "bad.json") {
		t.Fatalf("a broken file: exit %d, %q", code, bad.String())
	}
	var check report
	data, _ := os.ReadFile(pb)
	if err := json.Unmarshal(data, &check); err != nil || check.Totals.Reprocessed == nil || *check.Totals.Reprocessed != 1000 {
		t.Fatalf("JSON totals %+v, %v", check.Totals, err)
	}
}

func TestMeasureCountsArgumentRetries(t *testing.T) {
	result := func(details string) provider.Message {
		return provider.Message{Role: provider.RoleToolResult, Details: json.RawMessage(details)}
	}
	msgs := []provider.Message{
		result(`{"argumentRetry":{"originalArguments":{},"error":"x","fixed":true},"lines":3}`),
		result(`{"argumentRetry":{"originalArguments":"{","error":"not JSON","fixed":false,"failure":"timed out"}}`),
		result(`{"lines":3}`), {Role: provider.RoleToolResult}, result(`[1,2]`),
	}
	var res runResult
	measure(&res, msgs, "ollama")
	if res.ArgRetries != 2 || res.ArgRetriesFixed != 1 {
		t.Fatalf("retries %d, fixed %d; want 2 and 1", res.ArgRetries, res.ArgRetriesFixed)
	}
	var out strings.Builder
	printReport(&out, &report{Runs: []runResult{res}, Totals: totalsOf([]runResult{res})})
	if row := tableRow(out.String(), "TOTAL"); len(row) < 6 || row[5] != "1/2" {
		t.Fatalf("ARG RETRY column: %v\n%s", row, out.String())
	}
}

func TestMeasureCountsCallsRecoveredFromText(t *testing.T) {
	recovered := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolCall("text_call_0", "read", nil)},
		Details: json.RawMessage(`{"recoveredToolCalls":[{"id":"text_call_0","name":"read","format":"tool_call"}]}`)}
	structured := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.ToolCall("c1", "read", nil)}}
	var res runResult
	measure(&res, []provider.Message{recovered, {Role: provider.RoleToolResult}, structured}, "ollama")
	if res.ToolCalls != 2 || res.TextCalls != 1 {
		t.Fatalf("tool calls %d, recovered %d; want 2 and 1", res.ToolCalls, res.TextCalls)
	}
	var out strings.Builder
	printReport(&out, &report{Runs: []runResult{res}, Totals: totalsOf([]runResult{res})})
	if row := tableRow(out.String(), "TOTAL"); len(row) < 5 || row[4] != "1" {
		t.Fatalf("TEXT CALLS column: %v\n%s", row, out.String())
	}
	if res.TextFormats["tool_call"] != 1 || !strings.Contains(out.String(), "text-call shapes: tool_call 1") {
		t.Fatalf("formats %v in the report:\n%s", res.TextFormats, out.String())
	}
}
