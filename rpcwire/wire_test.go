package rpcwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"pi/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/reencoded.golden")

// dataOf is the type each command's data decodes into.
func dataOf(command string) any {
	types := map[string]any{
		"get_state": &State{}, "get_available_models": &Models{}, "cycle_model": &CycleModel{},
		"cycle_thinking_level": &CycleThinking{}, "get_available_thinking_levels": &ThinkingLevels{},
		"scoped_models": &ScopedModels{}, "leaves_conversation": &Leaves{}, "get_tree": &Tree{},
		"navigate_tree": &NavigateTree{}, "get_fork_messages": &ForkMessages{}, "fork": &Fork{},
		"clone": &Cancelled{}, "new_session": &Cancelled{}, "switch_session": &Cancelled{},
		"get_session_stats": &SessionStats{}, "bash": &Bash{}, "export_html": &ExportHTML{},
		"get_last_assistant_text": &LastAssistantText{}, "compact": &Compact{}, "get_commands": &Commands{},
		"get_shortcuts": &Shortcuts{}, "get_messages": &Messages{},
	}
	return types[command]
}

// Responses recorded from `pi --mode rpc` (testdata/responses.jsonl; see testdata/README)
// decode into the typed shapes and encode back to the very same bytes: every field is
// known, in pi's order, omitted where pi omits it.
func TestRecordedResponsesRoundTrip(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		got := reencode(t, line)
		if !bytes.Equal(got, line) {
			t.Errorf("re-encoded differently:\n got %s\nwant %s", got, line)
		}
		out.Write(append(got, '\n'))
		var r Response
		_ = json.Unmarshal(line, &r)
		seen[r.Command] = true
	}
	for _, c := range []string{"get_state", "cycle_model", "get_tree", "navigate_tree", "fork", "bash", "compact",
		"get_session_stats", "get_last_assistant_text", "scoped_models", "leaves_conversation", "get_fork_messages"} {
		if !seen[c] {
			t.Errorf("no recorded response of %s", c)
		}
	}
	golden := filepath.Join("testdata", "reencoded.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil || !bytes.Equal(want, out.Bytes()) {
		t.Fatalf("re-encoded responses differ from %s (run with -update): %v", golden, err)
	}
}

// reencode decodes a response line, its data into the command's type, and encodes it again.
func reencode(t *testing.T, line []byte) []byte {
	t.Helper()
	var r Response
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if r.HasData() {
		v := dataOf(r.Command)
		if v == nil {
			t.Fatalf("no data type for %s", r.Command)
		}
		dec := json.NewDecoder(bytes.NewReader(r.Data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s data: %v", r.Command, err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		r.Data = data
	}
	got, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A command encodes only the fields it sets, and the same line decodes back to it.
func TestCommandEncodesOnlyItsFields(t *testing.T) {
	off := false
	for _, tc := range []struct {
		cmd  Command
		want string
	}{
		{Command{Type: "get_state"}, `{"type":"get_state"}`},
		{Command{ID: json.RawMessage(`"a"`), Type: "cycle_model", Step: -1}, `{"id":"a","type":"cycle_model","step":-1}`},
		{Command{Type: "set_auto_compaction", Enabled: &off}, `{"type":"set_auto_compaction","enabled":false}`},
		{Command{Type: "navigate_tree", TargetID: "e1", Summarize: true, CustomInstructions: "why"},
			`{"type":"navigate_tree","customInstructions":"why","targetId":"e1","summarize":true}`},
	} {
		b, err := json.Marshal(tc.cmd)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v encodes as %s (%v), want %s", tc.cmd, b, err, tc.want)
		}
		var back Command
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, tc.cmd) {
			t.Errorf("%s decodes to %+v (%v)", b, back, err)
		}
	}
}

// Event lines that are not what a client expects are errors, not panics or half values.
func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"type":"queue_update","steering":["a"],"followUp":[]}`))
	f.Add([]byte(`{"type":"tool_execution_update","toolCallId":"t","partialResult":{"content":[{"type":"text","text":"x"}]}}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := DecodeEvent(line)
		if err == nil && !json.Valid(line) {
			t.Fatalf("%q decoded to %+v", line, ev)
		}
	})
}

// The shapes whose recorded responses the faux provider cannot give (a second model to cycle
// to, a model that thinks, a move with no message moved off) encode as the root's maps do.
func TestShapesEncodeAsTheRootsMaps(t *testing.T) {
	m := provider.Model{ID: "qwen3", Provider: "ollama", API: "ollama", Reasoning: true, ContextWindow: 40960}
	for _, tc := range []struct {
		typed any
		asMap map[string]any
	}{
		{CycleModel{IsScoped: true, Model: m, ThinkingLevel: "high"},
			map[string]any{"model": m, "thinkingLevel": "high", "isScoped": true}},
		{CycleThinking{Level: "medium"}, map[string]any{"level": "medium"}},
		{NavigateTree{LeafID: "e4"}, map[string]any{"cancelled": false, "leafId": "e4"}},
		{Fork{Text: "ask"}, map[string]any{"text": "ask", "cancelled": false}},
		{ScopedModels{Models: []provider.Model{m}, Scoped: true}, map[string]any{"models": []provider.Model{m}, "scoped": true}},
	} {
		got, err1 := json.Marshal(tc.typed)
		want, err2 := json.Marshal(tc.asMap)
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("%T encodes as\n%s\nthe root writes\n%s", tc.typed, got, want)
		}
	}
}

// queue_update keeps pi's key order (wire.go writes it as an ordered object) and always
// sends both lists.
func TestQueueUpdateLine(t *testing.T) {
	got, err := json.Marshal(QueueUpdate{Type: "queue_update", Steering: []string{"use tabs"}, FollowUp: []string{}})
	if want := `{"type":"queue_update","steering":["use tabs"],"followUp":[]}`; err != nil || string(got) != want {
		t.Errorf("queue_update is %s (%v), want %s", got, err, want)
	}
	ev, err := DecodeEvent(got)
	if err != nil || ev.Type != "queue_update" || len(ev.Steering) != 1 || ev.Steering[0] != "use tabs" {
		t.Errorf("read back as %+v (%v)", ev, err)
	}
}
