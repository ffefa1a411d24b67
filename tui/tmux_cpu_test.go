//go:build linux

package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chunkCPU is what TestTmuxChunkCPU measures: the whole process's CPU time per streamed
// 16-character chunk of a reply, after a transcript of so many lines.
type chunkCPU struct {
	lines  int
	perChk time.Duration
}

// The real binary at 120×40 in tmux resumes a session holding a transcript of 1,000 and then
// 100,000 lines, and streams a 2,000-chunk markdown reply in 16-character chunks: the CPU the
// whole process spends per chunk (user + system, from /proc) must not grow with the
// transcript. PI_CHUNK_CPU_MAX (a duration, e.g. 500us) also bounds each figure; it is not
// set by default, as a loaded machine (a -race run of every package at once) inflates CPU.
func TestTmuxChunkCPU(t *testing.T) {
	const chunks = 2000
	var got []chunkCPU
	for _, lines := range []int{1000, 100000} {
		per := measureChunkCPU(t, lines, chunks)
		t.Logf("%7d lines of transcript: %v CPU per 16-character chunk", lines, per)
		got = append(got, chunkCPU{lines, per})
	}
	if small, big := got[0].perChk, got[1].perChk; big > 2*small+100*time.Microsecond {
		t.Errorf("CPU per chunk grows with the transcript: %v after %d lines, %v after %d",
			small, got[0].lines, big, got[1].lines)
	}
	if limit, err := time.ParseDuration(os.Getenv("PI_CHUNK_CPU_MAX")); err == nil {
		for _, c := range got {
			if c.perChk > limit {
				t.Errorf("%v CPU per chunk after %d lines; the bound is %v", c.perChk, c.lines, limit)
			}
		}
	}
}

// measureChunkCPU starts pi on a session of lines transcript lines and returns the CPU per
// chunk of a reply of n chunks.
func measureChunkCPU(t *testing.T, lines, n int) time.Duration {
	text := streamedMarkdown(n * 16)
	script, err := json.Marshal(map[string]any{"chunkDelayMs": 4, "chunkRunes": 16, "replies": []any{
		map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}}})
	if err != nil {
		t.Fatal(err)
	}
	sessionFile := filepath.Join(t.TempDir(), "long.jsonl")
	writeLongSession(t, sessionFile, lines)
	m := startTmuxWith(t, string(script), "[compaction]\nenabled = false\n", 120, 40, "--session", sessionFile)
	m.settle("resumed", "", "")
	m.mustSee(fmt.Sprintf("history line %d", lines-1))
	pid := m.piPID()
	before := cpuTime(t, pid)
	m.keys("go", "Enter")
	m.settle("the streamed reply", "", "STREAM END")
	return (cpuTime(t, pid) - before) / time.Duration(n)
}

// streamedMarkdown is a markdown reply of about size bytes: paragraphs, a list, a code
// block, ending with "STREAM END".
func streamedMarkdown(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		switch i % 4 {
		case 0, 1:
			fmt.Fprintf(&b, "Paragraph %d has **bold** words, `code` and plain prose that wraps past the width of the screen at some point.\n\n", i)
		case 2:
			fmt.Fprintf(&b, "- item %d of a list\n- another item with *emphasis*\n\n", i)
		case 3:
			fmt.Fprintf(&b, "```go\nfunc f%d() int { return %d }\n```\n\n", i, i)
		}
	}
	return b.String() + "STREAM END"
}

// writeLongSession writes a session in pi's format whose one exchange shows lines lines.
func writeLongSession(t *testing.T, path string, lines int) {
	var body strings.Builder
	body.WriteString("```\n") // a code block keeps each line a row of its own
	for i := range lines {
		fmt.Fprintf(&body, "history line %d\n", i)
	}
	body.WriteString("```")
	ts := "2026-12-01T12:00:00.000Z"
	entries := []map[string]any{
		{"type": "session", "version": 3, "id": "0190a000-0000-7000-8000-000000000001", "timestamp": ts, "cwd": filepath.Dir(path)},
		{"type": "message", "id": "a0000001", "parentId": nil, "timestamp": ts, "message": map[string]any{
			"role": "user", "content": []any{map[string]any{"type": "text", "text": "show me the history"}}, "timestamp": 1}},
		{"type": "message", "id": "a0000002", "parentId": "a0000001", "timestamp": ts, "message": map[string]any{
			"role": "assistant", "content": []any{map[string]any{"type": "text", "text": body.String()}},
			"api": "faux", "provider": "faux", "model": "faux-1", "stopReason": "stop", "timestamp": 2}},
	}
	var out strings.Builder
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// piPID is the pid of the pi process the pane's shell runs.
func (m *tmux) piPID() int {
	m.t.Helper()
	shell := strings.TrimSpace(m.run("display-message", "-p", "-t", m.name, "#{pane_pid}"))
	data, err := os.ReadFile(fmt.Sprintf("/proc/%s/task/%s/children", shell, shell))
	if err != nil {
		m.t.Fatalf("children of the pane's shell %s: %v", shell, err)
	}
	fields := strings.Fields(string(data))
	if len(fields) != 1 {
		m.t.Fatalf("the pane's shell %s runs %q, want one pi process", shell, fields)
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		m.t.Fatal(err)
	}
	return pid
}

// cpuTime is the user + system CPU time pid has used, from /proc/PID/stat (in clock ticks
// of 10 ms on Linux; the reply runs for seconds, so the rounding stays under 1 %).
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("cpu time of pi (pid %d): %v", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from after it.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
