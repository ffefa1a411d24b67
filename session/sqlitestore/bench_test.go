package sqlitestore

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pi/internal/cputime"
	"pi/provider"
	"pi/session"
)

// The figures of docs/sessions.md, both stores side by side:
//
//	go test -run '^$' -bench . -benchtime 1x ./session/sqlitestore  (Append: -benchtime 400x)

// writeSession writes a session of cwd made of turns turns (prompt, tool call with a path,
// tool result of output bytes, answer; word goes into turn 0's prompt) as a JSONL file in
// dir and returns its path. Lines are encoded directly: generating is not what is measured.
func writeSession(tb testing.TB, dir, cwd string, turns, output int, word string) string {
	return writeCompacted(tb, dir, cwd, turns, output, word, 0)
}

// writeCompacted is writeSession with a compaction every compactEvery turns (0: none) that
// keeps the last 3 turns, as a long session with a 200k-token window has.
func writeCompacted(tb testing.TB, dir, cwd string, turns, output int, word string, compactEvery int) string {
	tb.Helper()
	s := session.InMemory(cwd)
	text := strings.Repeat("line of tool output with some text in it 0123456789\n", output/52+1)[:output]
	var starts []string
	for turn := range turns {
		prompt := fmt.Sprintf("turn %d: look at file %d %s", turn, turn, word)
		starts = append(starts, must(s.AppendMessage(provider.UserText(prompt, int64(turn)))))
		call := fmt.Sprintf("c%d", turn)
		s.AppendMessage(assistant("", provider.ToolCall(call, "read", map[string]any{"path": fmt.Sprintf("src/f%d.go", turn)})))
		s.AppendMessage(provider.Message{Role: provider.RoleToolResult, ToolCallID: call, ToolName: "read",
			Content: []provider.Block{provider.Text(text)}, Timestamp: int64(turn)})
		s.AppendMessage(assistant(fmt.Sprintf("answer %d", turn)))
		word = ""
		if compactEvery > 0 && turn%compactEvery == compactEvery-1 {
			s.AppendCompaction(session.Compaction{Summary: "## Goal\nbench", FirstKeptEntryID: starts[len(starts)-3], TokensBefore: 100000})
		}
	}
	h := s.Header()
	path := filepath.Join(dir, session.FileName(h.Timestamp, h.ID))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := func(v json.Marshaler) {
		line, err := v.MarshalJSON()
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(append(line, '\n'))
	}
	enc(h)
	for _, e := range must(s.Entries()) {
		enc(&e)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return path
}

// benchData makes, once per $TMPDIR, the data of a benchmark: JSONL files under home and the
// same sessions imported into home/sessions.db.
func benchData(b *testing.B, name string, make func(home string)) (home string) {
	b.Helper()
	home = filepath.Join(os.TempDir(), "pi-sqlite-bench", name)
	if _, err := os.Stat(filepath.Join(home, "done")); err == nil {
		return home
	}
	os.RemoveAll(home)
	make(home)
	st := must(Open(context.Background(), filepath.Join(home, "sessions.db")))
	defer st.Close()
	files, _ := filepath.Glob(filepath.Join(session.SessionsRoot(home), "*", "*.jsonl"))
	for _, f := range files {
		if _, _, err := st.Import(context.Background(), f); err != nil {
			b.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, "done"), nil, 0o600)
	return home
}

func benchStores(b *testing.B, home string) []struct {
	name string
	st   session.Store
} {
	st := must(Open(context.Background(), filepath.Join(home, "sessions.db")))
	b.Cleanup(func() { st.Close() })
	return []struct {
		name string
		st   session.Store
	}{{"jsonl", session.Files{Home: home}}, {"sqlite", st}}
}

// thousand is 1,000 sessions of one folder, 5 turns each with 4 KB tool results (about
// 22 KB a session); every 100th mentions "needle".
func thousand(b *testing.B) string {
	return benchData(b, "thousand", func(home string) {
		for i := range 1000 {
			word := ""
			if i%100 == 0 {
				word = "needle"
			}
			writeSession(b, session.Dir(home, "/bench"), "/bench", 5, 4000, word)
		}
	})
}

// BenchmarkList1000 is `pi sessions` over 1,000 sessions.
func BenchmarkList1000(b *testing.B) {
	for _, sc := range benchStores(b, thousand(b)) {
		b.Run(sc.name, func(b *testing.B) {
			start := cputime.Used()
			for b.Loop() {
				if n := len(must(sc.st.List(context.Background(), "/bench"))); n != 1000 {
					b.Fatalf("%d sessions listed", n)
				}
			}
			b.ReportMetric(float64((cputime.Used()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkSearch1000 is `pi sessions search needle` over the same 1,000 sessions.
func BenchmarkSearch1000(b *testing.B) {
	for _, sc := range benchStores(b, thousand(b)) {
		b.Run(sc.name, func(b *testing.B) {
			start := cputime.Used()
			for b.Loop() {
				n := 0
				if err := sc.st.Search(context.Background(), "needle", func(session.Hit) error { n++; return nil }); err != nil || n != 10 {
					b.Fatalf("%d hits, %v", n, err)
				}
			}
			b.ReportMetric(float64((cputime.Used()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkOpen100MB opens a session of about 100 MB (4,800 turns with 20 KB tool results)
// and builds its context, as -c does: compacted every 30 turns (what a 200k-token window
// leaves: the context is the last few turns), and never compacted (the context is the whole
// file). cpu-ms/op is the process's CPU time per open, steadier than wall time on a shared
// machine.
func BenchmarkOpen100MB(b *testing.B) {
	for _, every := range []int{30, 0} {
		home := benchData(b, fmt.Sprintf("big-%d", every), func(home string) {
			writeCompacted(b, session.Dir(home, "/big"), "/big", 4800, 20000, "", every)
		})
		for _, sc := range benchStores(b, home) {
			b.Run(fmt.Sprintf("compact%d/%s", every, sc.name), func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					start := cputime.Used()
					s := must(sc.st.Newest(context.Background(), "/big"))
					if n := len(must(s.Context()).Messages); n == 0 || every == 0 && n != 4*4800 {
						b.Fatalf("context of %d messages", n)
					}
					cpu += cputime.Used() - start
					s.Close()
				}
				b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkAppend appends a prompt and a reply of about 1 KB each per iteration, with each
// store's durability (the JSONL file fsyncs after a reply, SQLite commits every entry with
// synchronous=FULL), and reports the median and the 99th percentile of one append.
func BenchmarkAppend(b *testing.B) {
	for _, sc := range benchStores(b, b.TempDir()) {
		b.Run(sc.name, func(b *testing.B) {
			s := sc.st.New("/append", "")
			defer s.Close()
			text := strings.Repeat("x", 1000)
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				for _, m := range []provider.Message{provider.UserText(text, int64(i)), assistant(text)} {
					start := time.Now()
					must(s.AppendMessage(m))
					took = append(took, time.Since(start))
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
		})
	}
}
