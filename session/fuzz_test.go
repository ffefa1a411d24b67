package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"toolResult","content":[{"type":"text","text":"\u001b[1mbold\u001b[0m \ud83d\ude00 \u00e9\n\t\"q\" \\ \/"}],"timestamp":1}}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[],"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.5,"output":1e-3,"cacheRead":0,"cacheWrite":0,"total":-0.0}},"timestamp":1}}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[],"usage":{"Input":1,"cost":{"total":1e400}},"timestamp":1}}`,
		`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[],"usage":{"input":1.0,"cost":null,"output":null},"timestamp":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"type":"label","id":"a\"b","parentId":"x","timestamp":"t"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fastAgrees(t, line)
		var e Entry
		jerr := json.Unmarshal(line, &e)
		// The index reads a line checkLine accepted; where a key repeats it reads it as the
		// entry decoder does (the last one counts).
		if shape, cerr := checkLine(line); cerr == nil && shape.object {
			m, err := scanMeta(line, shape.repeatKey)
			if err == nil && jerr == nil && (m.typ != e.Type || m.id != e.ID || m.parent != e.ParentID) {
				t.Fatalf("index %+v disagrees with entry %s/%s/%s", m, e.Type, e.ID, e.ParentID)
			}
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

// FuzzFile feeds whole files of arbitrary bytes to the scan and to a session opened on them.
// The fast index path must read every line exactly as the encoding/json reference does (same
// entries, links, warnings), parents must precede children, and every reader must agree:
// Context, BuildContext over Entries, and the listing.
func FuzzFile(f *testing.F) {
	if data, err := os.ReadFile(fixture); err == nil {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	for _, c := range damageSeeds(f) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ferr := scanFile(context.Background(), bytes.NewReader(data), scanOptions{})
		ref, rerr := scanFile(context.Background(), bytes.NewReader(data), scanOptions{reference: true})
		if (ferr == nil) != (rerr == nil) {
			t.Fatalf("fast scan: %v, reference scan: %v", ferr, rerr)
		}
		if ferr != nil {
			return
		}
		sameScan(t, fast, ref)
		checkOpened(t, fast, data)
	})
}

// damageSeeds are the damaged files of TestDamagedLines.
func damageSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, c := range damageCases() {
		out = append(out, []byte(strings.Join(c.damage(damageBase(tb)), "\n")+"\n"))
	}
	return out
}

func sameScan(t *testing.T, fast, ref *scanned) {
	t.Helper()
	if len(fast.nodes) != len(ref.nodes) || !reflect.DeepEqual(fast.warnings, ref.warnings) {
		t.Fatalf("fast and reference scans differ:\n%v\n%v", fast.warnings, ref.warnings)
	}
	for i := range fast.nodes {
		a, b := fast.nodes[i], ref.nodes[i]
		if a.role != "" && b.role != "" && a.role != b.role {
			t.Fatalf("node %d: role %q, reference %q", i, a.role, b.role)
		}
		a.role, b.role = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("node %d: %+v, reference %+v", i, a, b)
		}
		if int(a.up) >= i {
			t.Fatalf("node %d hangs from node %d", i, a.up)
		}
	}
}

// checkOpened loads data as Open does (without the file, whose fsyncs would slow fuzzing to a
// crawl) and checks that its readers agree.
func checkOpened(t *testing.T, sc *scanned, data []byte) {
	t.Helper()
	s, _ := loaded(sc, "", bytes.NewReader(data))
	if err := s.checkContext(); err != nil {
		t.Fatalf("load: %v", err)
	}
	var info Info
	if err := s.describe(&info); err != nil {
		t.Fatalf("describe: %v", err)
	}
	c, err := s.Context()
	if err != nil {
		t.Fatalf("context: %v", err)
	}
	entries, err := s.Entries()
	if err != nil {
		t.Fatalf("entries: %v", err)
	}
	if got, want := describe(BuildContext(entries, s.Leaf()).Messages), describe(c.Messages); !reflect.DeepEqual(got, want) {
		t.Fatalf("BuildContext over Entries = %q, Context = %q", got, want)
	}
	messages := 0
	for _, e := range entries {
		if e.Type == TypeMessage {
			messages++
		}
	}
	if info.MessageCount < messages || s.Len() != len(entries) {
		t.Fatalf("Describe counts %d messages, Len %d; the session has %d messages in %d entries",
			info.MessageCount, s.Len(), messages, len(entries))
	}
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

// FuzzCheckLine holds the scan's line check to its reference: it accepts exactly what
// json.Valid accepts in valid UTF-8, and it sees a repeated top-level key exactly when
// decoding the line into a map loses one.
func FuzzCheckLine(f *testing.F) {
	for _, seed := range []string{
		`{"a":1}`, ` {"a":[1,2,{"b":null}],"c":"\u00e9\n"} `, `[]`, `{}`, `"x"`, `-0.5e+3`, `01`, `1.`,
		`{"a":1,"a":2}`, `{"id":1,"\u0069d":2}`, "{\"a\":\"\x00\"}", "{\"a\":\"\xff\"}", `{"a":"\x"}`,
		`{"a":"\u12"}`, `[1,]`, `{"a" 1}`, `{"a":1}}`, `tru`, `nul`, "{\"a\":\"é\"}\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		shape, err := checkLine(line)
		want := json.Valid(line) && utf8.Valid(line)
		if (err == nil) != want {
			t.Fatalf("checkLine = %v, json.Valid && utf8.Valid = %v on %q", err, want, line)
		}
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		isObj := json.Unmarshal(line, &obj) == nil && obj != nil
		if shape.object != isObj {
			t.Fatalf("object = %v, want %v on %q", shape.object, isObj, line)
		}
		if isObj && shape.repeatKey != duplicateKeys(line) {
			t.Fatalf("repeatKey = %v, want %v on %q", shape.repeatKey, !shape.repeatKey, line)
		}
	})
}
