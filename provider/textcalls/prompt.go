package textcalls

import (
	"encoding/json"
	"strings"

	"pi/provider"
)

// Instructions describes tools in a system prompt, for a model the server will not give tools
// to (its template has none): how to call one, in the <tool_call> shape Find reads, and each
// tool with its argument schema on one line.
func Instructions(tools []provider.ToolDef) string {
	var b strings.Builder
	b.WriteString("# Tools\n\nTo call a tool, reply with only this, then wait for its result:\n" +
		"<tool_call>\n{\"name\": \"<tool>\", \"arguments\": {…}}\n</tool_call>\n\nTools, with the JSON Schema of their arguments:")
	for _, t := range tools {
		params := strings.TrimSpace(string(t.Parameters))
		if params == "" {
			params = `{"type":"object","properties":{}}`
		}
		b.WriteString("\n- " + t.Name + ": " + oneLine(t.Description) + "\n  " + params)
	}
	return b.String()
}

// Markup is a tool call written the way Instructions asks for it, for replaying an earlier call
// to such a model as text.
func Markup(name string, args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	a, _ := json.Marshal(args) // decoded JSON always encodes; keys sort
	n, _ := json.Marshal(name)
	return "<tool_call>\n{\"name\": " + string(n) + ", \"arguments\": " + string(a) + "}\n</tool_call>"
}

// Response wraps a tool's result for such a model, which sees it as a user message.
func Response(name, text string) string {
	return "<tool_response name=\"" + name + "\">\n" + text + "\n</tool_response>"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
