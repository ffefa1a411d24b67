package textcalls

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pi/provider"
)

// sampleRequest offers the samples' tools with their schemas (or only other tools).
func sampleRequest(offer bool) *provider.Request {
	req := &provider.Request{Messages: []provider.Message{provider.UserText("Look at the repository.", 1)}}
	for _, t := range SampleTools {
		name := t[0]
		if !offer {
			name = "other_" + name
		}
		req.Tools = append(req.Tools, provider.ToolDef{Name: name, Parameters: json.RawMessage(t[1])})
	}
	return req
}

func chunked(s string, n int) []string {
	if n <= 0 {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func callsOf(msg provider.Message) []Call {
	var got []Call
	for _, c := range msg.ToolCalls() {
		got = append(got, Call{c.Name, c.Arguments})
	}
	return got
}

func wantCalls(t *testing.T, js string) []Call {
	t.Helper()
	var raw []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		t.Fatalf("sample calls %s: %v", js, err)
	}
	var out []Call
	for _, r := range raw {
		out = append(out, Call{r.Name, r.Arguments})
	}
	return out
}

// TestEveryShapeSample runs each shape's samples through a Stream in 1-byte, 7-byte and whole
// chunks: the calls come out typed by the tools' schemas, the format is recorded, and nothing
// of the markup is shown.
func TestEveryShapeSample(t *testing.T) {
	samples, _ := Samples()
	for _, smp := range samples {
		want := wantCalls(t, smp.Calls)
		for _, n := range []int{1, 7, 0} {
			msg, shown := run(t, sampleRequest(true), chunked(smp.Reply, n)...)
			if got := callsOf(msg); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q in %d-byte chunks: calls %+v, want %+v", smp.Format, smp.Reply, n, got, want)
				continue
			}
			if shown != smp.Text || msg.TextContent() != smp.Text {
				t.Errorf("%s %q in %d-byte chunks: shown %q, text %q, want %q", smp.Format, smp.Reply, n, shown, msg.TextContent(), smp.Text)
			}
			if f := Formats(&msg); len(f) != len(want) || f[0] != smp.Format {
				t.Errorf("%s %q: formats %v", smp.Format, smp.Reply, f)
			}
		}
	}
}

// TestShapesThatAreNotCalls checks, for every shape: its samples shown as documentation in a
// code block, its samples calling tools that were not offered, and the replies that mention it,
// all stay text exactly as written.
func TestShapesThatAreNotCalls(t *testing.T) {
	samples, notCalls := Samples()
	type neg struct {
		name, reply string
		offer       bool
	}
	var cases []neg
	for _, smp := range samples {
		cases = append(cases,
			neg{smp.Format + " documented", "The format looks like this:\n~~~text\n" + smp.Reply + "\n~~~\nThat is all.", true},
			neg{smp.Format + " tool not offered", smp.Reply, false})
		if !strings.Contains(smp.Reply, "```") {
			cases = append(cases, neg{smp.Format + " documented in xml", "Format:\n```xml\n" + smp.Reply + "\n```\n", true})
		}
	}
	for _, r := range notCalls {
		cases = append(cases, neg{"mention", r, true})
	}
	for _, tc := range cases {
		for _, n := range []int{1, 7, 0} {
			msg, shown := run(t, sampleRequest(tc.offer), chunked(tc.reply, n)...)
			if len(msg.ToolCalls()) != 0 || msg.TextContent() != tc.reply || shown != tc.reply || len(msg.Details) != 0 {
				t.Errorf("%s %q in %d-byte chunks: calls %+v shown %q", tc.name, tc.reply, n, msg.ToolCalls(), shown)
				break
			}
		}
	}
}

func TestArgumentsUnderUnknownKeyAreNotRun(t *testing.T) {
	for _, reply := range []string{
		`<tool_call>{"name":"bash","argument":{"command":"rm -rf /"}}</tool_call>`,
		`<tool_call>{"name":"bash","arguments":{"command":"ls"},"args":{"command":"rm -rf /"}}</tool_call>`,
		`<tool_call>{"name":"bash","arguments":[1]}</tool_call>`,
		`<tool_call>{"name":"bash","arguments":"not json"}</tool_call>`,
	} {
		if msg, _ := run(t, sampleRequest(true), reply); len(msg.ToolCalls()) != 0 {
			t.Errorf("%s ran as %+v", reply, msg.ToolCalls())
		}
	}
}

// TestTheModelsLastFormatIsTriedFirst: a reply that two shapes could read goes to the one the
// model used before, as recorded in the conversation.
func TestTheModelsLastFormatIsTriedFirst(t *testing.T) {
	prev, _ := run(t, sampleRequest(true), "<tool_call>read<arg_key>path</arg_key><arg_value>a</arg_value></tool_call>")
	prev.Model = "m1"
	if f := Formats(&prev); len(f) != 1 || f[0] != FormatGLM {
		t.Fatalf("formats %v", f)
	}
	req := sampleRequest(true)
	req.Model.ID = "m1"
	req.Messages = append(req.Messages, prev)
	if s := New(provider.NewBuilder(&req.Model, func(provider.Event) {}), req); s.sc.prefer != FormatGLM {
		t.Fatalf("prefer %q", s.sc.prefer)
	}
	req.Model.ID = "m2"
	if s := New(provider.NewBuilder(&req.Model, func(provider.Event) {}), req); s.sc.prefer != "" {
		t.Fatalf("another model preferred %q", s.sc.prefer)
	}
}

// TestMarkupNeverShownWhileStreaming checks each sample's stream step by step: at no point
// does a front end see an opener of the shape.
func TestMarkupNeverShownWhileStreaming(t *testing.T) {
	samples, _ := Samples()
	for _, smp := range samples {
		req := sampleRequest(true)
		var shown strings.Builder
		b := provider.NewBuilder(&req.Model, func(e provider.Event) {
			if e.Type == provider.EventTextDelta {
				shown.WriteString(e.Delta)
			}
		})
		s := New(b, req)
		for _, c := range chunked(smp.Reply, 1) {
			s.Text(c)
			if got := shown.String(); !strings.HasPrefix(smp.Text, got) {
				t.Errorf("%s %q: shown %q mid-stream", smp.Format, smp.Reply, got)
				break
			}
		}
	}
}

// BenchmarkScanNoCalls streams replies without calls in 64-byte chunks through a Stream, with
// and without recovery: prose with tags, links, braces, inline code and small blocks; a Go file
// in a ```go block (braces, brackets, backticks, composite literals opening lines); a JSON
// document. The 500 KB variants show the cost stays linear in the reply's length.
func BenchmarkScanNoCalls(b *testing.B) {
	for _, r := range []struct {
		name string
		unit string
		size int
		wrap func(string) string
	}{
		{"prose-50KB", "The <b>scan</b> looks at [links](x) and {braces}, `code` and lists:\n- item one\n- item two\n" +
			"```go\nfunc f() { return }\n```\n{\"name\": \"Bob\"}\nread the file, then bash it.\n", 50 << 10, nil},
		{"go-50KB", goUnit, 50 << 10, goBlock},
		{"go-500KB", goUnit, 500 << 10, goBlock},
		{"json-50KB", jsonUnit, 50 << 10, jsonDocument},
		{"json-500KB", jsonUnit, 500 << 10, jsonDocument},
	} {
		reply := strings.Repeat(r.unit, r.size/len(r.unit)+1)
		if r.wrap != nil {
			reply = r.wrap(reply)
		}
		b.Run(r.name, func(b *testing.B) { benchmarkStream(b, reply, 64) })
	}
}

// goUnit is a piece of a Go file: a table of composite literals, struct tags and raw strings.
const goUnit = "type entry struct {\n\tName string `json:\"name\"`\n\tArgs []string `json:\"args,omitempty\"`\n}\n\n" +
	"var entries = []entry{\n\t{Name: \"a\", Args: []string{\"x\", \"y\"}},\n\t{\"b\", nil},\n}\n\n" +
	"func pick(m map[string][]int, k string) int {\n\tif v := m[k]; len(v) > 0 && v[0] < 10 {\n\t\treturn v[0]\n\t}\n" +
	"\treturn len(`<tag attr=\"{x}\">[y]</tag>`)\n}\n\n"

func goBlock(code string) string {
	return "Here is the file:\n\n```go\npackage main\n\n" + code + "```\n\nIt compiles.\n"
}

// jsonUnit is an element of a JSON document's list of objects.
const jsonUnit = "  {\n    \"name\": \"item\",\n    \"tags\": [\"a\", \"b\"],\n    \"nested\": {\"x\": 1, \"y\": [1, 2, {\"z\": null}]},\n" +
	"    \"text\": \"braces { and [ in a string \\\" with an escape\"\n  },\n"

func jsonDocument(items string) string {
	return "The document:\n[\n" + strings.TrimSuffix(items, ",\n") + "\n]\n"
}

func benchmarkStream(b *testing.B, reply string, chunk int) {
	chunks := chunked(reply, chunk)
	for _, on := range []bool{true, false} {
		name := "recovery"
		if !on {
			name = "off"
		}
		b.Run(name, func(b *testing.B) {
			req := sampleRequest(true)
			req.Model.NoTextToolCalls = !on
			b.SetBytes(int64(len(reply)))
			b.ReportAllocs()
			for b.Loop() {
				bd := provider.NewBuilder(&req.Model, func(provider.Event) {})
				s := New(bd, req)
				for _, c := range chunks {
					s.Text(c)
				}
				s.Finish()
			}
		})
	}
}

// BenchmarkScanCalls streams every shape's samples, one after another as one reply, in 64-byte
// chunks: the cost of recovering calls.
func BenchmarkScanCalls(b *testing.B) {
	samples, _ := Samples()
	var replies []string
	for _, smp := range samples {
		replies = append(replies, smp.Reply)
	}
	reply := strings.Join(replies, "\n")
	b.Run("samples", func(b *testing.B) { benchmarkStream(b, reply, 64) })
}
