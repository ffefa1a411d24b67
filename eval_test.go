package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/internal/ollamatest"
	"pi/provider"
)

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

const (
	writeDoneScript = `[{"content":[{"type":"toolCall","id":"c1","name":"write","arguments":{"path":"done.txt","content":"yes\n"}}]},
		{"content":[{"type":"text","text":"Wrote done.txt."}]}]`
	loopScript = `[{"content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"false"}}]},
		{"content":[{"type":"toolCall","id":"c2","name":"bash","arguments":{"command":"true"}}]},
		{"content":[{"type":"text","text":"never reached"}]}]`
	slowScript  = `{"chunkDelayMs": 100, "chunkRunes": 1, "replies": [{"content":[{"type":"text","text":"a slow answer that takes seconds"}]}]}`
	errorScript = `[{"stopReason":"error","errorMessage":"connection refused: is the model server running?"}]`
)

// TestEvalReportsPassesAndWhyOthersFail runs a small task folder with the faux model, which
// replays each task's script, and checks the verdict and reason of each task, the table and
// the JSON results.
func TestEvalReportsPassesAndWhyOthersFail(t *testing.T) {
	t.Setenv("PI_HOME", t.TempDir()) // the user's pi.toml and init.lua must not leak in
	dir := t.TempDir()
	writeTask(t, dir, "solves", "prompt = \"write done.txt\"\ncheck = \"grep -qx yes done.txt\"\n", writeDoneScript, nil)
	writeTask(t, dir, "wrong-answer", "prompt = \"say ok\"\ncheck = 'grep -q ok \"$PI_EVAL_ANSWER\"'\n",
		`[{"content":[{"type":"text","text":"no"}]}]`, map[string]string{"keep.txt": "x\n"})
	writeTask(t, dir, "over-budget", "prompt = \"loop\"\ncheck = \"true\"\nmax_turns = 2\n", loopScript, nil)
	writeTask(t, dir, "too-slow", "prompt = \"wait\"\ncheck = \"true\"\ntimeout_seconds = 1\n", slowScript, nil)
	writeTask(t, dir, "model-down", "prompt = \"hi\"\ncheck = \"true\"\n", errorScript, nil)
	out := filepath.Join(t.TempDir(), "results.json")
	var stdout, stderr bytes.Buffer
	code := runEval(context.Background(), []string{"--model", "faux", "--tasks", dir, "--runs", "2", "--json", out}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (some tasks fail)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	rep, err := readReport(out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Runs != 10 || rep.Totals.Passed != 2 {
		t.Fatalf("totals %+v, want 10 runs and 2 passed", rep.Totals)
	}
	want := []struct {
		task, reason string
		pass         bool
		turns, errs  int
	}{
		{"solves", "", true, 2, 0},
		{"wrong-answer", `check exited 1 without output; it was: grep -q ok "$PI_EVAL_ANSWER" (answer: "no")`, false, 1, 0},
		{"over-budget", "turn budget of 2 used up while the model still called tools", false, 2, 1},
		{"too-slow", "time budget of 1s used up", false, 1, 0},
		{"model-down", "model error: connection refused: is the model server running?", false, 1, 0},
	}
	for _, w := range want {
		for _, r := range rep.Runs {
			if r.Task == w.task && (r.Pass != w.pass || r.Reason != w.reason || r.Turns != w.turns || r.ToolErrors != w.errs) {
				t.Errorf("%s run %d: pass %v reason %q turns %d tool errors %d; want %v %q %d %d",
					w.task, r.Run, r.Pass, r.Reason, r.Turns, r.ToolErrors, w.pass, w.reason, w.turns, w.errs)
			}
		}
	}
	for _, row := range [][]string{
		{"solves", "2/2", "2", "0"},
		{"over-budget", "0/2", "2", "1"},
		{"TOTAL", "2/10"},
	} {
		if got := tableRow(stdout.String(), row[0]); len(got) < len(row) || !slices.Equal(got[:len(row)], row) {
			t.Errorf("table row %v, want it to start %v:\n%s", got, row, stdout.String())
		}
	}
	if !strings.Contains(stdout.String(), "pass rate 20%") {
		t.Errorf("table lacks the pass rate:\n%s", stdout.String())
	}
	for _, s := range []string{"[1/10] model-down (run 1/2)", "turn 1: bash (1 failed)", "FAIL in 1 turns"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("progress lacks %q:\n%s", s, stderr.String())
		}
	}
}

// TestEvalBuiltinSetUnpacks runs part of the embedded golden set in process, so the copy in
// the binary (and its _go.mod renaming) is exercised, not only the source tree's.
func TestEvalBuiltinSetUnpacks(t *testing.T) {
	t.Setenv("PI_HOME", t.TempDir())
	var stdout, stderr bytes.Buffer
	code := runEval(context.Background(), []string{"--model", "faux", "--run", "^(fix-greeting-typo|recover-edit-mismatch)$"}, &stdout, &stderr)
	if row := tableRow(stdout.String(), "TOTAL"); code != 0 || len(row) < 2 || row[1] != "2/2" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
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
	t.Setenv("PI_HOME", t.TempDir())
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1") // nothing listens there
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
			code := runEval(context.Background(), tc.args, &stdout, &stderr)
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
	a := &evalReport{Model: "ollama/small", Started: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Runs: []evalRun{
		{Task: "fix", Run: 1, Pass: false, Turns: 6, TokensIn: 4000, WallMs: 30000, Reason: "check exited 1"},
		{Task: "fix", Run: 2, Pass: true, Turns: 4, TokensIn: 3000, WallMs: 20000},
		{Task: "only-a", Run: 1, Pass: true, Turns: 2, WallMs: 1000},
	}}
	b := &evalReport{Model: "ollama/big", Started: a.Started, Runs: []evalRun{
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
	if code := runEval(context.Background(), []string{"--compare", pa, pb}, &stdout, &stderr); code != 0 {
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
	if code := runEval(context.Background(), []string{"--compare", pa, filepath.Join(dir, "bad.json")}, &stdout, &bad); code != 1 ||
		!strings.Contains(bad.String(), "bad.json") {
		t.Fatalf("a broken file: exit %d, %q", code, bad.String())
	}
	var check evalReport
	data, _ := os.ReadFile(pb)
	if err := json.Unmarshal(data, &check); err != nil || check.Totals.Reprocessed == nil || *check.Totals.Reprocessed != 1000 {
		t.Fatalf("JSON totals %+v, %v", check.Totals, err)
	}
}

// TestEvalOnRealOllama runs the whole built-in set against a real Ollama server with a tiny
// scripted model that knows one trick: it answers any task by writing scripts/count.sh, which
// is exactly what create-script asks for. That task must pass, with its tokens measured, and
// every other task must fail with a stated reason.
func TestEvalOnRealOllama(t *testing.T) {
	s := startOllama(t, ollamatest.ModelSpec{Rules: []ollamatest.Rule{
		{When: ollamatest.When{LastRole: "tool"}, Reply: "Created scripts/count.sh for you."},
		{When: ollamatest.When{LastRole: "user", ToolOffered: "write"},
			Reply: ollamatest.ToolCall("write", map[string]any{"path": "scripts/count.sh", "content": "grep -c . data.txt\n"})},
	}})
	dir := e2eProject(t, s, nil)
	t.Setenv("PI_HOME", filepath.Join(dir, ".pihome"))
	out := filepath.Join(dir, "results.json")
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := runEval(context.Background(), []string{"--model", "native/" + e2eModel, "--json", out}, &stdout, &stderr)
	t.Logf("pi eval took %s:\n%s", time.Since(start).Round(time.Millisecond), stdout.String())
	if code != 1 {
		t.Fatalf("exit %d, want 1 (most tasks fail)\nstderr:\n%s", code, stderr.String())
	}
	rep, err := readReport(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		solver := r.Task == "create-script"
		switch {
		case r.Pass != solver:
			t.Errorf("%s: pass %v (%s)", r.Task, r.Pass, r.Reason)
		case !r.Pass && !strings.HasPrefix(r.Reason, "check exited"):
			t.Errorf("%s failed for an unexpected reason: %s", r.Task, r.Reason)
		case r.Turns != 2 || r.TokensIn == 0 || r.TokensOut == 0:
			t.Errorf("%s: %d turns, tokens %d/%d; want 2 turns with usage", r.Task, r.Turns, r.TokensIn, r.TokensOut)
		case r.ReprocessedSource != "estimated" || r.Reprocessed == nil || *r.Reprocessed <= 0 || *r.Reprocessed > r.TokensIn:
			t.Errorf("%s: re-processed %v (%s) of %d prompt tokens", r.Task, deref(r.Reprocessed), r.ReprocessedSource, r.TokensIn)
		}
	}
	if rep.Totals.Passed != 1 || rep.Totals.Runs < 15 {
		t.Fatalf("totals %+v, want 1 of the whole set passed", rep.Totals)
	}
}
