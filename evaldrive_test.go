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

	"pi/eval"
	"pi/internal/ollamatest"
)

// These tests run pi eval with the real agent (driveEval); eval/eval_test.go tests the
// package's own logic with stand-in drives.

// runEval is `pi eval` as main runs it.
func runEval(ctx context.Context, args []string, stdout, stderr *bytes.Buffer) int {
	return eval.Main(ctx, args, stdout, stderr, eval.Options{Drive: driveEval, CheckModel: checkEvalModel})
}

// writeTask makes a task folder under dir: task.toml from the given body, the fixture files,
// and the script.
func writeTask(t *testing.T, dir, name, toml, script string, fixture map[string]string) {
	t.Helper()
	root := filepath.Join(dir, name)
	files := map[string]string{"task.toml": toml, "script.json": script}
	for rel, content := range fixture {
		files[filepath.Join("fixture", rel)] = content
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

// evalResults is the part of pi eval's --json file these tests read.
type evalResults struct {
	Runs []struct {
		Task              string `json:"task"`
		Run               int    `json:"run"`
		Pass              bool   `json:"pass"`
		Reason            string `json:"reason"`
		Turns             int    `json:"turns"`
		ToolErrors        int    `json:"toolErrors"`
		TokensIn          int    `json:"tokensIn"`
		TokensOut         int    `json:"tokensOut"`
		Reprocessed       *int   `json:"reprocessed"`
		ReprocessedSource string `json:"reprocessedSource"`
	} `json:"runs"`
	Totals struct {
		Runs   int `json:"runs"`
		Passed int `json:"passed"`
	} `json:"totals"`
}

func readEvalResults(path string) (*evalResults, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep evalResults
	return &rep, json.Unmarshal(data, &rep)
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
	rep, err := readEvalResults(out)
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

// TestEvalChecksModelOnce: a model server that is down is one error before any task runs, found
// by resolving the model with the user's configuration.
func TestEvalChecksModelOnce(t *testing.T) {
	t.Setenv("PI_HOME", t.TempDir())
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1") // nothing listens there
	var stdout, stderr bytes.Buffer
	code := runEval(context.Background(), []string{"--model", "ollama/qwen3:1.7b"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "connection refused") || strings.Count(stderr.String(), "pi eval:") > 1 {
		t.Fatalf("exit %d, stderr %q; want 1 and one error saying connection refused", code, stderr.String())
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
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
	rep, err := readEvalResults(out)
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
