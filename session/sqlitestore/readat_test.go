package sqlitestore

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"pi/session"
)

// TestLogReadsAsTheFile: every span a session reads from its log holds the bytes the same
// span of its JSONL file holds, from mid-line starts to spans across many lines; a span past
// the last line is an error, not zeros.
func TestLogReadsAsTheFile(t *testing.T) {
	ctx := context.Background()
	st := must(Open(ctx, filepath.Join(t.TempDir(), "s.db")))
	defer st.Close()
	s := st.New("/proj", "")
	fill(t, s)
	id := s.ID()
	s.Close()
	var file bytes.Buffer
	if err := st.Export(ctx, id, &file); err != nil {
		t.Fatal(err)
	}
	data := file.Bytes()
	first := int64(bytes.IndexByte(data, '\n') + 1) // entries start after the header line
	l := &log{st: st, id: id}
	for _, tc := range []struct {
		name     string
		off, n   int64
		wantFail bool
	}{
		{"first entry's first byte", first, 1, false},
		{"from mid first entry across all", first + 7, int64(len(data)) - first - 7, false},
		{"a newline alone", int64(bytes.IndexByte(data[first:], '\n')) + first, 1, false},
		{"the last byte", int64(len(data)) - 1, 1, false},
		{"middle span", int64(len(data)) / 2, 300, false},
		{"past the end", int64(len(data)) - 10, 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := make([]byte, tc.n)
			n, err := l.ReadAt(p, tc.off)
			if tc.wantFail {
				if err == nil {
					t.Fatalf("read past the end gave %d bytes and no error", n)
				}
				return
			}
			if err != nil || !bytes.Equal(p, data[tc.off:tc.off+tc.n]) {
				t.Fatalf("ReadAt(%d, %d) = %q, %v; the file has %q", tc.off, tc.n, p, err, data[tc.off:tc.off+tc.n])
			}
		})
	}
}

// FuzzSearchQuery: any query is searched without an error in both stores (the SQLite store
// quotes it for FTS5), and for printable ASCII both find the same entries.
func FuzzSearchQuery(f *testing.F) {
	for _, q := range []string{"parser", `"`, `a"b`, "NEAR(", "*", "lexer.go", "x", "  ", "Zebra", "ü", "\x00", "AND OR NOT"} {
		f.Add(q)
	}
	home := f.TempDir()
	files := session.Files{Home: home}
	db := must(Open(context.Background(), filepath.Join(home, "s.db")))
	f.Cleanup(func() { db.Close() })
	for _, st := range []session.Store{files, db} {
		s := st.New("/proj", "")
		fill(f, s)
		s.Close()
	}
	f.Fuzz(func(t *testing.T, query string) {
		if query == "" || !utf8.ValidString(query) {
			return
		}
		var found [2][]string
		for k, st := range []session.Store{files, db} {
			err := st.Search(context.Background(), query, func(h session.Hit) error {
				found[k] = append(found[k], h.Line)
				return nil
			})
			if err != nil {
				t.Fatalf("store %d: search %q: %v", k, query, err)
			}
			slices.Sort(found[k])
		}
		printable := !strings.ContainsFunc(query, func(r rune) bool { return r < ' ' || r > '~' })
		if printable && !slices.Equal(found[0], found[1]) {
			t.Fatalf("search %q: the files find %q, the database %q", query, found[0], found[1])
		}
	})
}
