package session

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"pi/provider"
)

const crashChildEnv = "PI_SESSION_CRASH_CHILD"

// TestCrashChild is the child process of TestCrashKill: it runs a long tool loop into a session
// in the directory named by the environment and prints each entry id once its append returned.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("run by TestCrashKill")
	}
	s := Create(dir, "/crash")
	out := bufio.NewWriter(os.Stdout)
	report := func(id string, err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Fprintln(out, id)
		out.Flush()
	}
	report(s.AppendMessage(provider.UserText("run the loop", 1)))
	output := strings.Repeat("output line\n", 2000)
	for i := 0; ; i++ {
		call := fmt.Sprintf("call_%d", i)
		report(s.AppendMessage(provider.Message{Role: provider.RoleAssistant, API: "faux", Provider: "faux",
			Model: "faux-1", Content: []provider.Block{provider.ToolCall(call, "bash", map[string]any{"command": "ls"})},
			Usage: &provider.Usage{}, StopReason: provider.StopToolUse, Timestamp: int64(i)}))
		report(s.AppendMessage(provider.Message{Role: provider.RoleToolResult, ToolCallID: call, ToolName: "bash",
			Content: []provider.Block{provider.Text(output)}, Timestamp: int64(i)}))
	}
}

// TestCrashKill kills a process appending to a session with SIGKILL at a random moment, 20
// times. Every entry whose append had returned must be in the file, the file must load, and
// the newest session (-c) must continue.
func TestCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	defer func() { t.Logf("%d entries reported written across 20 kills, all found", total) }()
	for round := range 20 {
		dir := t.TempDir()
		ids := runAndKill(t, exe, dir, time.Duration(20+rand.IntN(200))*time.Millisecond)
		total += len(ids)
		path, err := FindNewest(dir)
		if err != nil || path == "" {
			if len(ids) > 1 { // an id after the first assistant message means the file exists
				t.Fatalf("round %d: no session after %d entries: %v", round, len(ids), err)
			}
			continue
		}
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(ids) == 1 { // only the user message returned: nothing is written before the first reply,
			ids = nil // and a kill while that reply's append creates the file may leave the header alone
		}
		for _, id := range ids {
			if _, err := s.Entry(id); err != nil {
				t.Fatalf("round %d: entry %s reported written is missing (%d reported, %d loaded, warnings %v)",
					round, id, len(ids), s.Len(), s.Warnings())
			}
		}
		if _, err := s.AppendMessage(provider.UserText("continued", 1)); err != nil {
			t.Fatalf("round %d: continue: %v", round, err)
		}
		if _, err := s.Context(); err != nil {
			t.Fatalf("round %d: context: %v", round, err)
		}
		s.Close()
	}
}

func runAndKill(t *testing.T, exe, dir string, after time.Duration) []string {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestCrashChild$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	time.Sleep(after)
	_ = cmd.Process.Kill() // SIGKILL
	var ids []string
	for l := range lines {
		if len(l) == 8 {
			ids = append(ids, l)
		}
	}
	_ = cmd.Wait()
	return ids
}
