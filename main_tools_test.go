package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// toolRun is what one --mode json run of the binary reported of its tool calls.
type toolRun struct {
	results map[string]toolOutcome // by call id
	stdout  string
	// toolSpan is from the first tool_execution_start to the last tool_execution_end, as the
	// lines arrived.
	toolSpan time.Duration
}

type toolOutcome struct {
	isError bool
	text    string
}

// runFauxTools runs the binary in dir on a faux script of the given replies, in JSON mode.
func runFauxTools(t *testing.T, bin, dir string, replies []any, args ...string) toolRun {
	t.Helper()
	data, _ := json.Marshal(replies)
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--faux-script", script, "--mode", "json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(t.TempDir(), "pihome"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := toolRun{results: map[string]toolOutcome{}}
	var first, last time.Time
	var all strings.Builder
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
		var ev struct {
			Type       string `json:"type"`
			ToolCallID string `json:"toolCallId"`
			IsError    bool   `json:"isError"`
			Result     struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "tool_execution_start":
			if first.IsZero() {
				first = time.Now()
			}
		case "tool_execution_end":
			last = time.Now()
			var text strings.Builder
			for _, c := range ev.Result.Content {
				text.WriteString(c.Text)
			}
			run.results[ev.ToolCallID] = toolOutcome{ev.IsError, text.String()}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("pi: %v\n%s", err, stderr.String())
	}
	run.stdout, run.toolSpan = all.String(), last.Sub(first)
	return run
}

func toolCall(id, name string, args map[string]any) map[string]any {
	return map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}
}

func reply(blocks ...map[string]any) map[string]any { return map[string]any{"content": blocks} }

func editCall(id, path, old, nw string) map[string]any {
	return toolCall(id, "edit", map[string]any{"path": path, "edits": []any{map[string]any{"oldText": old, "newText": nw}}})
}

// Calls of one reply on one file run in the order sent; the others still run alongside.
func TestBinaryCallsOnOneFileInOrder(t *testing.T) {
	bin := buildPi(t)
	done := reply(map[string]any{"type": "text", "text": "done"})
	tests := []struct {
		name     string
		calls    []map[string]any
		want     string // a.txt afterwards
		parallel bool   // the two one-second sleeps on other files must overlap
	}{
		{"edit then write", []map[string]any{editCall("e", "a.txt", "one", "two"),
			toolCall("w", "write", map[string]any{"path": "./a.txt", "content": "written after the edit\n"})},
			"written after the edit\n", false},
		{"two edits and a read of another file", []map[string]any{editCall("e1", "a.txt", "one", "two"),
			toolCall("s1", "bash", map[string]any{"command": "sleep 1; cat b.txt"}),
			toolCall("r", "read", map[string]any{"path": "b.txt"}),
			toolCall("s2", "bash", map[string]any{"command": "sleep 1; echo x > c.txt"}),
			editCall("e2", "a.txt", "two", "three")},
			"three\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 5 { // the calls start in any order: repeat so that a race would show
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
				os.WriteFile(filepath.Join(dir, "b.txt"), []byte("other\n"), 0o644)
				run := runFauxTools(t, bin, dir, []any{reply(tc.calls...), done}, "change a.txt")
				for id, r := range run.results {
					if r.isError {
						t.Fatalf("call %s failed: %s", id, r.text)
					}
				}
				if len(run.results) != len(tc.calls) {
					t.Fatalf("%d calls ran, want %d", len(run.results), len(tc.calls))
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != tc.want {
					t.Fatalf("a.txt = %q, want %q", got, tc.want)
				}
				if tc.parallel && run.toolSpan >= 1900*time.Millisecond {
					t.Fatalf("the calls took %v: the sleeps on other files did not overlap", run.toolSpan)
				}
				if tc.parallel {
					t.Logf("tool calls took %v (two one-second sleeps, in parallel)", run.toolSpan)
					if r := run.results["r"]; !strings.Contains(r.text, "other") {
						t.Fatalf("read of b.txt: %q", r.text)
					}
				}
			}
		})
	}
}

// Paths as macOS writes them: decomposed names, a lowercase am/pm after U+202F.
func TestBinaryFindsMacOSSpellings(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	files := map[string]string{
		"Screenshot 2026-12-01 at 10.00.00\u202fam.png": "lowercase screenshot\n",
		"Screenshot 2026-12-01 at 9.00.00\u202fPM.png":  "uppercase screenshot\n",
		"Re\u0301sume\u0301.txt":                        "decomposed name\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	done := reply(map[string]any{"type": "text", "text": "done"})
	run := runFauxTools(t, bin, dir, []any{reply(
		toolCall("lower", "read", map[string]any{"path": "Screenshot 2026-12-01 at 10.00.00 am.png"}),
		toolCall("upper", "read", map[string]any{"path": "Screenshot 2026-12-01 at 9.00.00 PM.png"}),
		toolCall("nfc", "read", map[string]any{"path": "R\u00e9sum\u00e9.txt"}),
		toolCall("glob", "find", map[string]any{"pattern": "["}),
	), done}, "--tools", "read,find", "@Screenshot 2026-12-01 at 10.00.00 am.png", "@R\u00e9sum\u00e9.txt", "look")
	want := map[string]string{"lower": "lowercase screenshot", "upper": "uppercase screenshot", "nfc": "decomposed name"}
	for id, text := range want {
		if r := run.results[id]; r.isError || !strings.Contains(r.text, text) {
			t.Errorf("read %s: error %v, %q; want %q", id, r.isError, r.text, text)
		}
	}
	if r := run.results["glob"]; !r.isError || !strings.Contains(r.text, "invalid glob pattern") {
		t.Errorf("find [: error %v, %q; want the pattern's error", r.isError, r.text)
	}
	// The @file arguments reached the first prompt.
	for _, text := range []string{"lowercase screenshot", "decomposed name"} {
		if strings.Count(run.stdout, text) < 2 { // in the prompt and in the read result
			t.Errorf("@file with %q was not attached", text)
		}
	}
}
