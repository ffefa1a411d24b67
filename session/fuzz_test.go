package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
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
	for _, seed := range []string{
		`{"type":"message","id":"1","parentId":null`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"h\u00e9 é","timestamp":1}}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":[],"timestamp":-0,"isError":null}}`,
		`{"type":"message","id":"a","parentId":"p","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":null},{"type":"text","text":"a","Text":"b"}],"usage":null,"timestamp":1.5}}`,
		`{"type":"label","id":"a","parentId":"b","timestamp":"t","targetId":"x","label":null}`,
		`{"type":"custom","customType":"c","data":[1,{"a":"\"}"}],"id":"x","parentId":null,"timestamp":"t","extra":{"k":[true,false,null]}}`,
		`{"type":"compaction","id":"a","parentId":null,"timestamp":"t","summary":"s","summary":null,"tokensBefore":1e3}`,
		` {"type":"session_info","id":"a","parentId":null,"timestamp":"t","name":"n\tm"} `,
	} {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"type":"label","id":"a\"b","parentId":"x","timestamp":"t"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fastAgrees(t, line)
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

// fastAgrees checks the single-pass decoder against encoding/json on one line: when the fast
// decoder accepts a line, encoding/json must accept it too and produce the same entry.
func fastAgrees(t *testing.T, line []byte) (taken bool) {
	t.Helper()
	var fast, slow Entry
	if !fastEntry(line, &fast) {
		return false
	}
	if err := slow.slowUnmarshal(line); err != nil {
		t.Fatalf("fast decoder accepted a line encoding/json rejects (%v):\n%s", err, line)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decoders disagree on\n%s\nfast %#v\nslow %#v", line, fast, slow)
	}
	return true
}
