package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// FuzzLine feeds arbitrary lines to the parsers of session lines. They must never panic, the
// fast index scan must agree with encoding/json where both accept a line, and an entry that
// parses must re-serialise to a line that parses to the same bytes again.
func FuzzLine(f *testing.F) {
	if data, err := os.ReadFile(fixture); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.Add(append([]byte(nil), sc.Bytes()...))
		}
	}
	f.Add([]byte(`{"type":"message","id":"1","parentId":null`))
	f.Add([]byte(`{"type":"label","id":"a\"b","parentId":"x","timestamp":"t"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := scanMeta(line)
		var e Entry
		jerr := json.Unmarshal(line, &e)
		// pi never writes a key twice; for such lines the fast index scan may take the first
		// value where encoding/json takes the last.
		if err == nil && jerr == nil && !duplicateKeys(line) && (m.typ != e.Type || m.id != e.ID || m.parent != e.ParentID) {
			t.Fatalf("index %+v disagrees with entry %s/%s/%s", m, e.Type, e.ID, e.ParentID)
		}
		var h Header
		_ = json.Unmarshal(line, &h)
		if jerr != nil {
			return
		}
		out, err := encodeLine(&e)
		if err != nil {
			return // e.g. a content block of unknown type: refused, not mangled
		}
		var e2 Entry
		if err := json.Unmarshal(out, &e2); err != nil {
			t.Fatalf("re-serialised line does not parse: %v\n%s", err, out)
		}
		out2, err := encodeLine(&e2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}

// FuzzFile checks that scanning a whole file of arbitrary bytes never panics.
func FuzzFile(f *testing.F) {
	if data, err := os.ReadFile(fixture); err == nil {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = scanFile(context.Background(), bytes.NewReader(data))
	})
}

// duplicateKeys reports whether the top-level object of line repeats a key.
func duplicateKeys(line []byte) bool {
	var f map[string]json.RawMessage
	if json.Unmarshal(line, &f) != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if _, err := dec.Token(); err != nil {
		return false
	}
	n := 0
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			return false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		n++
	}
	return n != len(f)
}
