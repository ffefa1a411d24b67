package session

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pi/provider"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const fixture = "../testdata/sessions/pi-0.73.jsonl"

// copyFixture copies the pi-written fixture to a temporary file (tests write to it).
func copyFixture(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "2026-05-07T10-11-12-345Z_019e0262-3c49-7b41-9c3e-2f1a8b6d4e10.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInteropFixture loads a file laid out as pi 0.73 writes it, with every entry type, and
// checks that every entry re-serialises to the same bytes, that the context is pi's, and that
// the session continues.
func TestInteropFixture(t *testing.T) {
	p := copyFixture(t)
	orig := readLines(t, p)
	s, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings()) != 0 {
		t.Fatalf("warnings: %v", s.Warnings())
	}
	h, _ := encodeLine(s.Header())
	if string(h) != orig[0]+"\n" {
		t.Errorf("header re-serialised as\n%s\nwant\n%s", h, orig[0])
	}
	entries, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(orig)-1 {
		t.Fatalf("%d entries, want %d", len(entries), len(orig)-1)
	}
	types := map[Type]bool{}
	for i := range entries {
		types[entries[i].Type] = true
		line, err := encodeLine(&entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(line) != orig[i+1]+"\n" {
			t.Errorf("entry %d re-serialised as\n%s\nwant\n%s", i, line, orig[i+1])
		}
	}
	if len(types) != 9 {
		t.Errorf("fixture covers %d entry types, want all 9", len(types))
	}
	checkFixtureContext(t, s)

	ok := mustAppend(t)
	u := ok(s.AppendMessage(provider.UserText("continue", 2)))
	a := ok(s.AppendMessage(assistant("continued")))
	s.Close()
	lines := readLines(t, p)
	if strings.Join(lines[:len(orig)], "\n") != strings.Join(orig, "\n") || len(lines) != len(orig)+2 {
		t.Fatal("continuing changed the existing lines")
	}
	for i, id := range []string{u, a} {
		var e Entry
		if err := json.Unmarshal([]byte(lines[len(orig)+i]), &e); err != nil || e.ID != id {
			t.Fatalf("appended line %d: %v %s", i, err, lines[len(orig)+i])
		}
	}
	if !strings.Contains(lines[len(orig)], `"parentId":"06778899"`) {
		t.Errorf("continuation does not hang off the old leaf: %s", lines[len(orig)])
	}
}

func checkFixtureContext(t *testing.T, s *Session) {
	t.Helper()
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"compactionSummary:Written by an extension.", "user:Update the test to expect 3.",
		"assistant:Done: `pkg/a_test.go` now expects 3."}
	checkContext(t, c, want, "medium", "anthropic/claude-sonnet-4-5")
	if s.Name() != "fix TestA" || s.Label("c3d4e5f6") != "" {
		t.Errorf("name=%q label=%q (the second label entry clears it)", s.Name(), s.Label("c3d4e5f6"))
	}
	// The first compaction is on another branch: from its leaf, the summary and kept tail.
	c, err = s.BuildContext("a0112233")
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(c.Messages); len(got) != 6 || !strings.HasPrefix(got[0], "compactionSummary:## Goal") ||
		got[1] != "assistant:A returns 3 since the \"off by one\" change; the test expects 2 → I'll update the test." {
		t.Errorf("context at a0112233 = %q", got)
	}
	if c.Provider != "anthropic" || c.Thinking != "medium" {
		t.Errorf("model at a0112233 = %s/%s thinking %s", c.Provider, c.ModelID, c.Thinking)
	}
}

// TestWrittenFormat pins the bytes we write for each entry type (golden file; -update
// rewrites it). Compare with the fixture: the field order per type is pi's.
func TestWrittenFormat(t *testing.T) {
	tr, label, name := true, "start", "demo"
	user := provider.UserText("a <b> & c", 1)
	asst := assistant("x")
	bash := provider.Message{Role: RoleBashExecution, Timestamp: 3, Extra: map[string]json.RawMessage{
		"command": json.RawMessage(`"ls"`), "output": json.RawMessage(`""`), "exitCode": json.RawMessage(`0`),
		"cancelled": json.RawMessage(`false`), "truncated": json.RawMessage(`false`)}}
	base := func(typ Type, id, parent string) Entry {
		return Entry{Type: typ, ID: id, ParentID: parent, Timestamp: "2026-01-02T03:04:05.678Z"}
	}
	var entries []Entry
	add := func(e Entry, fill func(*Entry)) { fill(&e); entries = append(entries, e) }
	add(base(TypeMessage, "00000001", ""), func(e *Entry) { e.Message = &user })
	add(base(TypeMessage, "00000002", "00000001"), func(e *Entry) { e.Message = &asst })
	add(base(TypeMessage, "00000003", "00000002"), func(e *Entry) { e.Message = &bash })
	add(base(TypeModelChange, "00000004", "00000003"), func(e *Entry) { e.Provider, e.ModelID = "ollama", "qwen3:8b" })
	add(base(TypeThinking, "00000005", "00000004"), func(e *Entry) { e.ThinkingLevel = "low" })
	add(base(TypeCompaction, "00000006", "00000005"), func(e *Entry) {
		e.Summary, e.FirstKeptEntryID, e.TokensBefore = "S", "00000002", 42
		e.Details = json.RawMessage(`{"readFiles":["a.go"],"modifiedFiles":[]}`)
	})
	add(base(TypeBranchSummary, "00000007", "00000002"), func(e *Entry) { e.FromID, e.Summary, e.FromHook = "00000002", "B", &tr })
	add(base(TypeCustom, "00000008", "00000007"), func(e *Entry) { e.CustomType, e.Data = "st", json.RawMessage(`{"k":1}`) })
	add(base(TypeCustomMessage, "00000009", "00000008"), func(e *Entry) {
		e.CustomType, e.Content, e.StringContent, e.Display = "note", []provider.Block{provider.Text("hi")}, true, false
	})
	add(base(TypeLabel, "0000000a", "00000009"), func(e *Entry) { e.TargetID, e.Label = "00000001", &label })
	add(base(TypeSessionInfo, "0000000b", "0000000a"), func(e *Entry) { e.Name = &name })
	var buf bytes.Buffer
	for i := range entries {
		line, err := encodeLine(&entries[i])
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
	}
	golden := "../testdata/sessions/written.golden.jsonl"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("written format changed:\n%s\nwant\n%s", buf.Bytes(), want)
	}
}

// TestFastDecoderOnFixture: every line pi writes takes the single-pass decoder, and it agrees
// with encoding/json.
func TestFastDecoderOnFixture(t *testing.T) {
	for i, line := range readLines(t, fixture)[1:] {
		if !fastAgrees(t, []byte(line)) {
			t.Errorf("line %d falls back to encoding/json:\n%s", i+2, line)
		}
	}
}

// TestFastDecoderKnowsProviderFields trips when provider.Message or provider.Block gain or
// lose a field: fastdecode.go mirrors their decoders and must be updated with them.
func TestFastDecoderKnowsProviderFields(t *testing.T) {
	want := map[string]string{
		"Message": "Role Content StringContent API Provider Model ResponseID Usage StopReason ErrorMessage RetryAfter ToolCallID ToolName Details IsError Timestamp Extra",
		"Block":   "Type Text TextSignature Thinking ThinkingSignature Redacted Data MimeType ID Name Arguments ThoughtSignature RawArguments",
		"Usage":   "Input Output CacheRead CacheWrite TotalTokens Cost Timings", // Timings is never written (json:"-")
		"Cost":    "Input Output CacheRead CacheWrite Total",
	}
	for name, typ := range map[string]reflect.Type{"Message": reflect.TypeOf(provider.Message{}), "Block": reflect.TypeOf(provider.Block{}),
		"Usage": reflect.TypeOf(provider.Usage{}), "Cost": reflect.TypeOf(provider.Cost{})} {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if strings.Join(got, " ") != want[name] {
			t.Errorf("provider.%s fields are now %q: update fastMessage/fastBlock/fastUsage in fastdecode.go, then this list", name, got)
		}
	}
}
