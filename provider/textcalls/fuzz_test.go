package textcalls

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pi/provider"
)

// FuzzStream checks, for any reply and any chunk split: no panic; the outcome does not depend
// on the split; a reply with nothing recovered is kept exactly; recovered markup is never shown.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		"<tool_call>{\"name\":\"read\",\"arguments\":{\"path\":\"a\"}}</tool_call>",
		"x\n{\"name\": \"bash\", \"parameters\": {\"command\": \"ls\"}}\ny",
		"[TOOL_CALLS]read[ARGS]{\"path\":\"b\"}",
		"[TOOL_CALLS][{\"name\":\"read\",\"arguments\":{}}]",
		"<|python_tag|>{\"name\":\"read\",\"parameters\":{}};{\"name\":\"bash\",\"parameters\":{}}",
		"```json\n{\"name\":\"read\",\"arguments\":{\"path\":\"c\"}}\n```\n```go\nx\n```",
		"{ \"a\": [1, \"}\\\"\"] }\n<tool_call>",
	} {
		f.Add(s, uint(len(s)/2))
	}
	samples, notCalls := Samples()
	for _, smp := range samples {
		f.Add(smp.Reply, uint(len(smp.Reply)/3))
	}
	for _, s := range notCalls {
		f.Add(s, uint(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, reply string, cut uint) {
		if len(reply) > 4096 {
			return
		}
		k := int(cut % uint(len(reply)+1))
		whole, wholeShown := run(t, request("go"), reply)
		split, splitShown := run(t, request("go"), reply[:k], reply[k:])
		if !reflect.DeepEqual(whole.Content, split.Content) || wholeShown != splitShown {
			t.Fatalf("split at %d changed the outcome:\n%+v\n%+v", k, whole.Content, split.Content)
		}
		if Recovered(&whole) == 0 {
			if whole.TextContent() != reply || wholeShown != reply {
				t.Fatalf("reply changed without a recovery: %q shown %q", whole.TextContent(), wholeShown)
			}
			return
		}
		for _, m := range Find(reply, 0, func(n string) bool { return n == "read" || n == "bash" }) {
			if raw := reply[m.Start:m.End]; strings.Contains(wholeShown, raw) && strings.TrimSpace(raw) != "" {
				t.Fatalf("recovered markup %q was shown: %q", raw, wholeShown)
			}
		}
	})
}

// FuzzStreamShortcuts checks the stream's shortcuts against the plain scan for any reply and
// any chunking: resumed searches give the events that searches from the start give, and the
// table of openers' first bytes keeps every shape that may start at a place.
func FuzzStreamShortcuts(f *testing.F) {
	samples, notCalls := Samples()
	for _, smp := range samples {
		f.Add(smp.Reply, uint64(len(smp.Reply)), uint8(7))
	}
	for _, s := range notCalls {
		f.Add(s, uint64(len(s)), uint8(3))
	}
	f.Add("```go\nx := `a`\n{\"b\": [1]}\n```\n{\"name\": \"read\", \"arguments\": {}}\n", uint64(9), uint8(1))
	f.Fuzz(func(t *testing.T, reply string, seed uint64, maxChunk uint8) {
		if len(reply) > 4096 {
			return
		}
		chunks := randomChunks(reply, seed, int(maxChunk)+1)
		remembered := streamEvents(reply, chunks, true)
		if plain := streamEvents(reply, chunks, false); !reflect.DeepEqual(remembered, plain) {
			t.Fatalf("resumed searches changed the events of %q in %q:\n%q\n%q", reply, chunks, remembered, plain)
		}
		sc := &scan{text: reply, offered: func(n string) bool { return n == "read" || n == "bash" }, names: []string{"read", "bash"}}
		for i := range reply {
			for _, lineStart := range []bool{true, false} {
				got, gotPartial := sc.shapesAt(i, lineStart)
				want, wantPartial := shapesAtEach(sc, i, lineStart)
				if got != want || gotPartial != wantPartial {
					t.Fatalf("at %d of %q: shapes %b, %v; each shape tried: %b, %v", i, reply, got, gotPartial, want, wantPartial)
				}
			}
		}
	})
}

func randomChunks(s string, seed uint64, maxChunk int) []string {
	var out []string
	for s != "" {
		seed = seed*6364136223846793005 + 1442695040888963407
		n := min(int(seed>>33)%maxChunk+1, len(s))
		out, s = append(out, s[:n]), s[n:]
	}
	return out
}

// streamEvents lists what a stream passes to its builder, fragment by fragment.
func streamEvents(reply string, chunks []string, remember bool) []string {
	req := request("go")
	var out []string
	b := provider.NewBuilder(&req.Model, func(e provider.Event) { out = append(out, string(e.Type)+":"+e.Delta) })
	s := New(b, req)
	s.sc.stream = remember
	for _, c := range chunks {
		s.Text(c)
		out = append(out, "|")
	}
	s.Finish()
	for _, c := range b.Message().ToolCalls() {
		out = append(out, fmt.Sprintf("call %s %v", c.Name, c.Arguments))
	}
	return out
}

// shapesAtEach is shapesAt trying every shape of the table, not only those mayOpen lets by.
func shapesAtEach(sc *scan, i int, lineStart bool) (shapeSet, bool) {
	return sc.shapesAmong(shapeSet(1)<<len(shapes)-1, i, lineStart)
}
