package textcalls

import (
	"reflect"
	"strings"
	"testing"
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
