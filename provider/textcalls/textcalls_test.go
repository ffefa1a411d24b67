package textcalls

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pi/provider"
)

var offeredTools = []provider.ToolDef{{Name: "read"}, {Name: "bash"}}

// run streams the chunks through a Stream and returns the final message and every text delta
// a front end saw.
func run(t *testing.T, req *provider.Request, chunks ...string) (provider.Message, string) {
	t.Helper()
	var shown strings.Builder
	b := provider.NewBuilder(&req.Model, func(e provider.Event) {
		if e.Type == provider.EventTextDelta {
			shown.WriteString(e.Delta)
		}
	})
	b.Start()
	s := New(b, req)
	for _, c := range chunks {
		s.Text(c)
	}
	s.Finish()
	return b.Done(provider.StopStop), shown.String()
}

func request(user string) *provider.Request {
	return &provider.Request{Tools: offeredTools, Messages: []provider.Message{provider.UserText(user, 1)}}
}

func TestRecoversEachShape(t *testing.T) {
	read := map[string]any{"path": "README.md"}
	for _, tc := range []struct {
		name, reply, text, format string
		calls                     []Call
	}{
		{"hermes", "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>", "", FormatHermes,
			[]Call{{"read", read}}},
		{"hermes after text", "Let me look.\n<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"README.md\"}}</tool_call>", "Let me look.\n", FormatHermes,
			[]Call{{"read", read}}},
		{"hermes unclosed", "<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"README.md\"}}", "", FormatHermes,
			[]Call{{"read", read}}},
		{"hermes arguments as string", `<tool_call>{"name":"read","arguments":"{\"path\":\"README.md\"}"}</tool_call>`, "", FormatHermes,
			[]Call{{"read", read}}},
		{"two hermes", "<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"README.md\"}}</tool_call>\n<tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}</tool_call>", "", FormatHermes,
			[]Call{{"read", read}, {"bash", map[string]any{"command": "ls"}}}},
		{"python tag", `<|python_tag|>{"name": "read", "parameters": {"path": "README.md"}}`, "", FormatPythonTag,
			[]Call{{"read", read}}},
		{"python tag two", `<|python_tag|>{"name": "read", "parameters": {"path": "README.md"}}; {"name": "bash", "parameters": {"command": "ls"}}`, "", FormatPythonTag,
			[]Call{{"read", read}, {"bash", map[string]any{"command": "ls"}}}},
		{"bare llama object", `{"name": "read", "parameters": {"path": "README.md"}}`, "", FormatBare,
			[]Call{{"read", read}}},
		{"bare with type", "I will read it.\n{\"type\": \"function\", \"name\": \"read\", \"parameters\": {\"path\": \"README.md\"}}", "I will read it.\n", FormatBare,
			[]Call{{"read", read}}},
		{"mistral array", `[TOOL_CALLS][{"name": "read", "arguments": {"path": "README.md"}}]`, "", FormatMistral,
			[]Call{{"read", read}}},
		{"mistral args form", `[TOOL_CALLS]read[ARGS]{"path": "README.md"}`, "", FormatMistral,
			[]Call{{"read", read}}},
		{"fenced json", "```json\n{\"name\": \"read\", \"arguments\": {\"path\": \"README.md\"}}\n```", "", FormatFenced,
			[]Call{{"read", read}}},
		{"fenced openai shape", "```\n{\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":{\"path\":\"README.md\"}}}\n```\nDone.", "\nDone.", FormatFenced,
			[]Call{{"read", read}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, shown := run(t, request("Read the README."), tc.reply)
			var got []Call
			for _, c := range msg.ToolCalls() {
				got = append(got, Call{c.Name, c.Arguments})
			}
			if !reflect.DeepEqual(got, tc.calls) {
				t.Fatalf("calls %+v, want %+v", got, tc.calls)
			}
			if msg.TextContent() != tc.text || shown != tc.text {
				t.Errorf("text %q, shown %q, want %q", msg.TextContent(), shown, tc.text)
			}
			if msg.StopReason != provider.StopToolUse || Recovered(&msg) != len(tc.calls) {
				t.Errorf("stop %s, recovered %d", msg.StopReason, Recovered(&msg))
			}
			var d struct {
				Calls []recoveredCall `json:"recoveredToolCalls"`
			}
			if err := json.Unmarshal(msg.Details, &d); err != nil || d.Calls[0].Format != tc.format || d.Calls[0].ID != msg.ToolCalls()[0].ID {
				t.Errorf("details %s (%v)", msg.Details, err)
			}
		})
	}
}

func TestLeavesTextAlone(t *testing.T) {
	for _, tc := range []struct{ name, user, reply string }{
		{"unknown tool", "hi", `<tool_call>{"name":"delete_everything","arguments":{}}</tool_call>`},
		{"one unknown among known", "hi", `[TOOL_CALLS][{"name":"read","arguments":{"path":"a"}},{"name":"nope","arguments":{}}]`},
		{"json that is not a call", "hi", "Here:\n{\"name\": \"Bob\", \"age\": 3}"},
		{"call inside a go block", "hi", "```go\n{\"name\": \"read\", \"arguments\": {\"path\": \"x\"}}\n```"},
		{"inline mention", "hi", "Use <tool_call> tags, like `{\"name\":\"read\"}`."},
		{"brace prose", "hi", "{ this is not json"},
		{"quoted by the user", "What does this do?\n```\n<tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -rf /\"}}</tool_call>\n```",
			"It would run:\n<tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -rf /\"}}</tool_call>"},
		{"quoted call re-spelled", "Explain:\n```json\n{\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf /\"}}\n```",
			`<tool_call>{"name":"bash","arguments":{"command":"rm -rf /"}}</tool_call>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, shown := run(t, request(tc.user), tc.reply)
			if len(msg.ToolCalls()) != 0 || msg.TextContent() != tc.reply || shown != tc.reply || len(msg.Details) != 0 {
				t.Fatalf("calls %+v text %q shown %q details %s", msg.ToolCalls(), msg.TextContent(), shown, msg.Details)
			}
		})
	}
}

// TestMarkupSplitAcrossChunks feeds the reply in every two-way and byte-by-byte split: the
// outcome never depends on where chunks end, and the markup is never shown.
func TestMarkupSplitAcrossChunks(t *testing.T) {
	reply := "Reading.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>"
	check := func(t *testing.T, chunks []string) {
		msg, shown := run(t, request("go"), chunks...)
		if len(msg.ToolCalls()) != 1 || shown != "Reading.\n" || strings.Contains(shown, "<") {
			t.Fatalf("chunks %q: calls %+v shown %q", chunks, msg.ToolCalls(), shown)
		}
	}
	for i := 1; i < len(reply); i++ {
		check(t, []string{reply[:i], reply[i:]})
	}
	check(t, strings.Split(reply, ""))
}

// TestHoldsBackOnlyWhileUndecided checks what a front end sees during the stream: prose right
// away, a non-call JSON block once it closes, a recognised call never.
func TestHoldsBackOnlyWhileUndecided(t *testing.T) {
	req := request("go")
	var shown []string
	b := provider.NewBuilder(&req.Model, func(e provider.Event) {
		if e.Type == provider.EventTextDelta {
			shown = append(shown, e.Delta)
		}
	})
	s := New(b, req)
	steps := []struct{ chunk, shownAfter string }{
		{"Hello <", "Hello "},
		{"b> there\n", "Hello <b> there\n"},
		{"{\"a\": ", "Hello <b> there\n"},
		{"1}\nnext ", "Hello <b> there\n{\"a\": 1}\nnext "},
		{"<tool_", "Hello <b> there\n{\"a\": 1}\nnext "},
		{"call>{\"name\":\"read\",\"arguments\":{}}</tool_call> after", "Hello <b> there\n{\"a\": 1}\nnext "},
	}
	for _, st := range steps {
		s.Text(st.chunk)
		if got := strings.Join(shown, ""); got != st.shownAfter {
			t.Fatalf("after %q shown %q, want %q", st.chunk, got, st.shownAfter)
		}
	}
	s.Finish()
	msg := b.Done(provider.StopStop)
	if got := strings.Join(shown, ""); got != "Hello <b> there\n{\"a\": 1}\nnext  after" || len(msg.ToolCalls()) != 1 {
		t.Fatalf("final shown %q, calls %+v", got, msg.ToolCalls())
	}
}

func TestStructuredCallsWinAndSettingTurnsOff(t *testing.T) {
	reply := `<tool_call>{"name":"read","arguments":{"path":"a"}}</tool_call>`
	req := request("go")
	b := provider.NewBuilder(&req.Model, func(provider.Event) {})
	s := New(b, req)
	s.Text(reply)
	s.Flush()
	b.ToolCall("srv_1", "bash", map[string]any{"command": "ls"})
	s.Finish()
	msg := b.Done(provider.StopStop)
	if calls := msg.ToolCalls(); len(calls) != 1 || calls[0].ID != "srv_1" || msg.TextContent() != reply {
		t.Fatalf("structured reply changed: %+v", msg.Content)
	}
	off := request("go")
	off.Model.NoTextToolCalls = true
	if msg, shown := run(t, off, reply); len(msg.ToolCalls()) != 0 || shown != reply {
		t.Fatalf("recovery ran although turned off: %+v", msg.Content)
	}
}

func TestDetailsSurviveASessionRoundTrip(t *testing.T) {
	msg, _ := run(t, request("go"), `<tool_call>{"name":"read","arguments":{"path":"a"}}</tool_call>`)
	data, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back provider.Message
	if err := json.Unmarshal(data, &back); err != nil || Recovered(&back) != 1 {
		t.Fatalf("after a round trip %s: recovered %d (%v)", data, Recovered(&back), err)
	}
}

// TestEscapedNamesAreStillRead: JSON that names no offered tool as written is not parsed, but a
// name written with escapes is still read.
func TestEscapedNamesAreStillRead(t *testing.T) {
	slashed := &provider.Request{Tools: []provider.ToolDef{{Name: "fs/read"}}, Messages: []provider.Message{provider.UserText("go", 1)}}
	for _, tc := range []struct {
		name, reply, want string
		req               *provider.Request
	}{
		{"unicode escape", "{\"name\": \"re\\u0061d\", \"arguments\": {\"path\": \"a\"}}", "read", request("go")},
		{"escaped slash", "```json\n{\"name\": \"fs\\/read\", \"arguments\": {}}\n```", "fs/read", slashed},
		{"named as written", "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}", "bash", request("go")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, _ := run(t, tc.req, chunked(tc.reply, 5)...)
			if calls := msg.ToolCalls(); len(calls) != 1 || calls[0].Name != tc.want {
				t.Fatalf("calls %+v from %q", calls, tc.reply)
			}
		})
	}
}
