package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pi/provider"
)

// TestGoldenTasksReplay is the harness's regression test: every task of testdata/golden runs
// through the real pi binary (built from the module root) with its recorded script standing in for the model — real tools, a
// real session file, a scratch copy of the fixture — and its check must pass. A change to the
// loop, the tools or the prompts that breaks a task fails here.
func TestGoldenTasksReplay(t *testing.T) {
	tasks, err := loadTasks(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 15 {
		t.Fatalf("the golden set has %d tasks, want at least 15", len(tasks))
	}
	bin := buildPi(t)
	for _, task := range tasks {
		t.Run(task.Name, func(t *testing.T) {
			t.Parallel()
			replayGolden(t, bin, task)
		})
	}
}

func replayGolden(t *testing.T, bin string, tk *task) {
	script := filepath.Join(tk.Dir, scriptFileName)
	replies := scriptReplies(t, script)
	if replies > tk.MaxTurns {
		t.Fatalf("the script takes %d turns, over the task's budget of %d", replies, tk.MaxTurns)
	}
	s, err := newScratch(tk)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(s.root)
	ctx, cancel := context.WithTimeout(context.Background(), tk.timeout())
	defer cancel()
	args := []string{"--faux-script", script, "-p", tk.Prompt}
	if len(tk.Tools) > 0 {
		args = append(args, "--tools", strings.Join(tk.Tools, ","))
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = s.work
	cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(s.root, ".pihome"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pi: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	msgs := sessionMessages(t, s.root)
	if got := countRole(msgs, provider.RoleAssistant); got != replies {
		t.Fatalf("the session holds %d assistant replies, the script %d: the run ended early\nstderr: %s", got, replies, stderr.String())
	}
	if tk.Category == "recovery" && !slices.ContainsFunc(msgs, func(m provider.Message) bool { return m.IsError }) {
		t.Fatalf("a recovery task whose replay met no tool error: it no longer tests recovery")
	}
	pass, why, err := checkOutcome(ctx, tk, s, strings.TrimSpace(stdout.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !pass {
		t.Fatalf("check %q failed: %s\nanswer: %s\nstderr: %s\ntool results:\n%s", tk.Check, why, stdout.String(), stderr.String(), toolResultLines(msgs))
	}
}

// buildPi builds the pi binary, which this package must not import.
func buildPi(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pi")
	build := exec.Command("go", "build", "-o", bin, "pi")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README's install line builds it
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sessionMessages reads the messages of the one session file under dir/.pihome/sessions.
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
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return msgs
}

// scriptReplies counts the replies of a faux script file (either of its two forms).
func scriptReplies(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("every golden task needs a recorded script: %v", err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err == nil {
		return len(list)
	}
	var obj struct {
		Replies []json.RawMessage `json:"replies"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatalf("script %s: %v", path, err)
	}
	return len(obj.Replies)
}

func countRole(msgs []provider.Message, role provider.Role) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

// toolResultLines shows what each tool said, which is what a broken tool changes first.
func toolResultLines(msgs []provider.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role == provider.RoleToolResult {
			b.WriteString("  " + m.ToolName + ": " + provider.OneLine(m.TextContent(), 160) + "\n")
		}
	}
	return b.String()
}

// TestGoldenTaskMix keeps the kinds of work the golden set covers from silently shrinking.
func TestGoldenTaskMix(t *testing.T) {
	tasks, err := loadTasks(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, task := range tasks {
		count[task.Category]++
	}
	for _, tc := range []struct {
		category string
		min      int
	}{
		{"explain", 1}, {"one-line fix", 1}, {"multi-file edit", 1}, {"run tests and fix", 1},
		{"search", 1}, {"refactor", 1}, {"create file", 1}, {"recovery", 2},
	} {
		if count[tc.category] < tc.min {
			t.Errorf("category %q has %d tasks, want at least %d", tc.category, count[tc.category], tc.min)
		}
	}
}
