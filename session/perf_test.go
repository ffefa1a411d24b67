package session

import (
	"context"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"pi/provider"
)

// perfLines are the two lines a long session is made of: a 20 KB tool result and an assistant
// message with a tool call and usage.
func perfLines(t testing.TB) [][]byte {
	t.Helper()
	out := strings.Repeat("line of tool output with some text in it 0123456789\n", 400)
	entries := []Entry{
		{Type: TypeMessage, ID: "r0000001", ParentID: "a0000001", Timestamp: ts, Message: &provider.Message{
			Role: provider.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: []provider.Block{provider.Text(out)}, Timestamp: 1}},
		{Type: TypeMessage, ID: "a0000001", ParentID: "u0000001", Timestamp: ts, Message: &provider.Message{
			Role: provider.RoleAssistant, API: "faux", Provider: "faux", Model: "faux-1",
			Content:    []provider.Block{provider.Text("reading it"), provider.ToolCall("c1", "read", map[string]any{"path": "f.go"})},
			Usage:      &provider.Usage{Input: 1000, Output: 20, TotalTokens: 1020, Cost: provider.Cost{Input: 0.001, Total: 0.001}},
			StopReason: provider.StopToolUse, Timestamp: 1}},
	}
	var lines [][]byte
	for i := range entries {
		l, err := encodeLine(&entries[i])
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l[:len(l)-1])
	}
	return lines
}

// TestDecodeAllocations pins what decoding costs in allocations, the figure that follows the
// decoder's speed on a long path without timing anything: a tool result's text is copied out
// in one allocation, fields are split without allocating, and usage is decoded without
// reflection.
func TestDecodeAllocations(t *testing.T) {
	// 14 and 30 now; the decoder before 1 December made 37 and 67.
	for i, limit := range []float64{16, 34} {
		line := perfLines(t)[i]
		n := testing.AllocsPerRun(50, func() {
			var e Entry
			if err := e.UnmarshalJSON(line); err != nil {
				t.Fatal(err)
			}
		})
		if n > limit {
			t.Errorf("decoding line %d made %.0f allocations, want at most %.0f", i, n, limit)
		}
	}
}

// countingReader counts the reads that reach the file.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(1)
	return c.r.ReadAt(p, off)
}

// TestLongPathReads: building the context of a long path reads the file in runs of entries,
// not one read(2) per entry, and decodes every message of it.
func TestLongPathReads(t *testing.T) {
	path := genSession(t, t.TempDir(), 6<<20, 0) // never compacted: the context is the file
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := scanFile(context.Background(), f, scanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reads := &countingReader{r: f}
	s, _ := loaded(sc, path, reads)
	if err := s.checkContext(); err != nil { // what Open does
		t.Fatal(err)
	}
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	messages := 0
	for _, i := range s.pathIndices(s.leaf) {
		if s.nodes[i].typ == TypeMessage {
			messages++
		}
	}
	if len(c.Messages) != messages || messages < 1000 {
		t.Fatalf("context has %d messages, the path %d", len(c.Messages), messages)
	}
	if n := reads.n.Load(); n > 20 { // 6 MB in runs of at most 1 MB, a few cut by branches
		t.Fatalf("%d reads for %d entries", n, messages)
	}
}
