package sqlitestore

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/session"
)

// The child processes of the tests below, told what to do by the environment.
const (
	childDB  = "PI_SQLITE_CHILD_DB"  // the database
	childCwd = "PI_SQLITE_CHILD_CWD" // the session's folder
	childFor = "PI_SQLITE_CHILD_FOR" // stop after this long ("" for never)
)

// TestAppendChild is the child of TestCrashKill and TestWritersAndReader: it runs a tool loop
// into a new session of the SQLite store and prints each entry id once its append returned.
func TestAppendChild(t *testing.T) {
	db := os.Getenv(childDB)
	if db == "" {
		t.Skip("run by TestCrashKill and TestWritersAndReader")
	}
	st, err := Open(context.Background(), db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var deadline time.Time
	if d, err := time.ParseDuration(os.Getenv(childFor)); err == nil && d > 0 {
		deadline = time.Now().Add(d)
	}
	s := st.New(os.Getenv(childCwd), "")
	out := bufio.NewWriter(os.Stdout)
	report := func(id string, err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "append:", err)
			os.Exit(2)
		}
		fmt.Fprintln(out, id)
		out.Flush()
	}
	report(s.AppendMessage(provider.UserText("run the loop", 1)))
	output := strings.Repeat("output line\n", 2000)
	for i := 0; deadline.IsZero() || time.Now().Before(deadline); i++ {
		call := fmt.Sprintf("call_%d", i)
		report(s.AppendMessage(provider.Message{Role: provider.RoleAssistant, API: "faux", Provider: "faux",
			Model: "faux-1", Content: []provider.Block{provider.ToolCall(call, "bash", map[string]any{"command": "ls"})},
			Usage: &provider.Usage{}, StopReason: provider.StopToolUse, Timestamp: int64(i)}))
		report(s.AppendMessage(provider.Message{Role: provider.RoleToolResult, ToolCallID: call, ToolName: "bash",
			Content: []provider.Block{provider.Text(output)}, Timestamp: int64(i)}))
	}
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
		os.Exit(2)
	}
	st.Close()
}

// child starts TestAppendChild writing into db.
func child(t *testing.T, db, cwd string, runFor time.Duration) (*exec.Cmd, <-chan string, *strings.Builder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestAppendChild$")
	cmd.Env = append(os.Environ(), childDB+"="+db, childCwd+"="+cwd, childFor+"="+runFor.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ids := make(chan string, 1<<16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if l := sc.Text(); len(l) == 8 {
				ids <- l
			}
		}
		close(ids)
	}()
	return cmd, ids, &stderr
}

// TestCrashKill kills a process appending to a session of the SQLite store with SIGKILL at a
// random moment, 20 times. Every entry whose append had returned must be in the database,
// the session must open, and the newest session (-c) must continue.
func TestCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes")
	}
	ctx := context.Background()
	total := 0
	defer func() { t.Logf("%d entries reported written across 20 kills, all found", total) }()
	for round := range 20 {
		db := filepath.Join(t.TempDir(), "sessions.db")
		cmd, lines, _ := child(t, db, "/crash", 0)
		// Kill once a random number of entries is reported: the child is then mid-append.
		var ids []string
		killAt := 1 + rand.IntN(80)
		for id := range lines {
			if ids = append(ids, id); len(ids) == killAt {
				_ = cmd.Process.Kill()
			}
		}
		_ = cmd.Wait()
		total += len(ids)
		st, err := Open(ctx, db)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		s, err := st.Newest(ctx, "/crash")
		if err != nil || s == nil && len(ids) > 1 {
			t.Fatalf("round %d: no session after %d entries: %v", round, len(ids), err)
		}
		if s != nil {
			checkContinues(t, s, ids, round)
		}
		st.Close()
	}
}

func checkContinues(t *testing.T, s *session.Session, ids []string, round int) {
	t.Helper()
	for _, id := range ids {
		if _, err := s.Entry(id); err != nil {
			t.Fatalf("round %d: entry %s reported written is missing (%d reported, %d loaded)", round, id, len(ids), s.Len())
		}
	}
	if _, err := s.AppendMessage(provider.UserText("continued", 1)); err != nil {
		t.Fatalf("round %d: continue: %v", round, err)
	}
	if _, err := s.Context(); err != nil {
		t.Fatalf("round %d: context: %v", round, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("round %d: close: %v", round, err)
	}
}

// TestWritersAndReader runs two processes writing a session each into one database while this
// process reads every session over and over: no writer sees an error (no "database is
// locked"), every entry reported written is there, and each read is consistent (every entry
// hangs from one before it, the context builds, a session never shrinks). 5 s, or 30 s with
// PI_LONG_TESTS=1.
func TestWritersAndReader(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 5 s")
	}
	runFor := 5 * time.Second
	if os.Getenv("PI_LONG_TESTS") == "1" {
		runFor = 30 * time.Second
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "sessions.db")
	st, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type writer struct {
		cmd    *exec.Cmd
		ids    []string
		stderr *strings.Builder
		done   chan struct{}
	}
	writers := make([]*writer, 2)
	for i := range writers {
		cmd, lines, stderr := child(t, db, fmt.Sprintf("/w%d", i), runFor)
		w := &writer{cmd: cmd, stderr: stderr, done: make(chan struct{})}
		go func() {
			for id := range lines {
				w.ids = append(w.ids, id)
			}
			close(w.done)
		}()
		writers[i] = w
	}
	reads := readWhile(t, st, writers[0].done, writers[1].done)
	for i, w := range writers {
		<-w.done
		if err := w.cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v: %s", i, err, w.stderr)
		}
		s, err := st.Newest(ctx, fmt.Sprintf("/w%d", i))
		if err != nil || s == nil {
			t.Fatalf("writer %d's session: %v", i, err)
		}
		for _, id := range w.ids {
			if _, err := s.Entry(id); err != nil {
				t.Fatalf("writer %d: entry %s reported written is missing", i, id)
			}
		}
		t.Logf("writer %d: %d entries", i, len(w.ids))
		s.Close()
	}
	t.Logf("%d consistent reads", reads)
}

// readWhile opens every session read-only until both channels are closed, checking each
// read, and returns how many reads it made.
func readWhile(t *testing.T, st *Store, a, b <-chan struct{}) int {
	t.Helper()
	ctx := context.Background()
	seen := map[string]int{}
	reads := 0
	for {
		select {
		case <-a:
			select {
			case <-b:
				return reads
			default:
			}
		default:
		}
		infos, err := st.List(ctx, "")
		if err != nil {
			t.Fatalf("list while writing: %v", err)
		}
		for _, in := range infos {
			s, err := st.open(ctx, in.ID, false)
			if err != nil {
				t.Fatalf("read %s while writing: %v", in.ID, err)
			}
			checkConsistent(t, s, seen)
			s.Close()
			reads++
		}
	}
}

func checkConsistent(t *testing.T, s *session.Session, seen map[string]int) {
	t.Helper()
	entries, err := s.Entries()
	if err != nil {
		t.Fatalf("entries of %s while writing: %v", s.ID(), err)
	}
	if len(s.Warnings()) != 0 {
		t.Fatalf("read of %s while writing was repaired: %v", s.ID(), s.Warnings())
	}
	ids := map[string]bool{}
	for _, e := range entries {
		if e.ParentID != "" && !ids[e.ParentID] {
			t.Fatalf("%s: entry %s hangs from %s, not read before it", s.ID(), e.ID, e.ParentID)
		}
		ids[e.ID] = true
	}
	if len(entries) < seen[s.ID()] {
		t.Fatalf("%s shrank from %d to %d entries", s.ID(), seen[s.ID()], len(entries))
	}
	seen[s.ID()] = len(entries)
	if _, err := s.Context(); err != nil {
		t.Fatalf("context of %s while writing: %v", s.ID(), err)
	}
}
