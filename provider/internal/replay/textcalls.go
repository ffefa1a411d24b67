package replay

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"pi/provider"
	"pi/provider/textcalls"
)

// TextCallShapes streams every text-call shape's samples and mentions through an adapter in
// 1-byte, 7-byte and whole chunks: each sample becomes its calls with only its prose shown,
// each mention stays text, shown whole. stream gets the request (the samples' tools offered)
// and the reply's chunks, and returns the final message and the text its events showed.
func TextCallShapes(t *testing.T, stream func(req *provider.Request, chunks []string) (provider.Message, string)) {
	t.Helper()
	samples, notCalls := textcalls.Samples()
	req := &provider.Request{Messages: []provider.Message{provider.UserText("go", 1)}}
	for _, tl := range textcalls.SampleTools {
		req.Tools = append(req.Tools, provider.ToolDef{Name: tl[0], Parameters: json.RawMessage(tl[1])})
	}
	for _, n := range []int{1, 7, 0} {
		for _, smp := range samples {
			msg, shown := stream(req, SplitText(smp.Reply, n))
			if f := textcalls.Formats(&msg); len(f) == 0 || f[0] != smp.Format || shown != smp.Text {
				t.Errorf("%s %q in %d-byte chunks: formats %v, shown %q", smp.Format, smp.Reply, n, f, shown)
			}
		}
		for _, r := range notCalls {
			if msg, shown := stream(req, SplitText(r, n)); len(msg.ToolCalls()) != 0 || shown != r {
				t.Errorf("%q in %d-byte chunks: calls %+v, shown %q", r, n, msg.ToolCalls(), shown)
			}
		}
	}
}

// SplitText splits s into pieces of n bytes (whole when n is 0), each ending between characters,
// as a server splits the JSON strings it streams.
func SplitText(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := len(s)
		if n > 0 && n < k {
			k = n
			for k < len(s) && !utf8.RuneStart(s[k]) {
				k++
			}
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// ArgumentsRetry is a constrained retry of a read call whose arguments failed with problem,
// in a reply that also called bash, as the agent hands it to an adapter: the adapters' tests
// check the request each builds from it. tools are the request's tools, read first.
func ArgumentsRetry(model provider.Model, tools []provider.ToolDef, args map[string]any, problem string) *provider.ArgumentsRequest {
	req := &provider.Request{Model: model, SystemPrompt: "sys", Tools: tools,
		Messages: []provider.Message{provider.UserText("read the readme", 1)}}
	call := provider.ToolCall("call_1", "read", args)
	reply := &provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{call,
		provider.ToolCall("call_2", "bash", map[string]any{"command": "ls"})}, StopReason: provider.StopToolUse}
	return &provider.ArgumentsRequest{Request: req, Tool: tools[0], Reply: reply, Call: call,
		Result: "The arguments for the \"read\" tool are invalid", Problem: problem}
}
