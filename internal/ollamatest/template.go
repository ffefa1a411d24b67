package ollamatest

import (
	"fmt"
	"strconv"
	"strings"
)

// The template renders the conversation ChatML-style. While it goes, it records what the rules
// test: the newest message's role and content, and the number of tool and user messages (as
// strings of x, because Go templates cannot add). The tools come first, one JSON line each, so
// they sit in the stable start of the prompt. Mentioning .Tools makes Ollama report the tools
// capability; the {{ if .ToolCalls }} block names <tool_call> as the tag Ollama parses tool
// calls from, and renders earlier calls exactly as ToolCall spells them.
//
// Each assistant message is rendered after the marker the rules pick for the conversation
// before it, which is the marker its prompt ended with. So every prompt starts with the whole
// previous prompt, and the server's prompt cache covers all of it, as it would for a real model.
const (
	templateStart = `{{- $role := "" }}{{ $content := "" }}{{ $toolResults := "" }}{{ $userTurns := "" }}` +
		templateTools + `
{{- range .Messages }}<|im_start|>{{ .Role }}
{{ if eq .Role "assistant" }}`
	templateMessage = `{{ end }}{{ .Content }}` + templateToolCalls + `<|im_end|>
{{ $role = .Role }}{{ $content = .Content }}
{{- if eq .Role "tool" }}{{ $toolResults = print $toolResults "x" }}{{ end }}
{{- if eq .Role "user" }}{{ $userTurns = print $userTurns "x" }}{{ end }}
{{- end }}<|im_start|>assistant
`
)

// templateTools renders the offered tools; a spec with NoTools leaves it out, and Ollama then
// reports no tools capability.
const templateTools = `
{{- if .Tools }}<|im_start|>system
# Tools
{{ range .Tools }}{{ json .Function }}
{{ end }}<|im_end|>
{{ end }}`

// templateToolCalls renders earlier tool calls; it is also what makes Ollama parse <tool_call>
// output into structured calls, so a spec with TextToolCalls leaves it out.
const templateToolCalls = `
{{- if .ToolCalls }}{{ range .ToolCalls }}<tool_call>
{"name": {{ json .Function.Name }}, "arguments": {{ .Function.Arguments }}}
</tool_call>{{ end }}{{ end }}`

// chatTemplate assembles the template: the first rule whose condition holds puts its marker
// last in the prompt, and the model's bigram table continues from there.
func chatTemplate(spec ModelSpec, markers []string) string {
	choice := markerChoice(spec, markers)
	start, message := templateStart, templateMessage
	if spec.TextToolCalls || spec.NoTools {
		message = strings.Replace(message, templateToolCalls, "", 1)
	}
	if spec.NoTools {
		start = strings.Replace(start, templateTools, "", 1)
	}
	return toolFlags(spec.Rules) + start + choice + message + choice
}

// markerChoice is an if/else-if chain over the rules that prints the chosen marker.
func markerChoice(spec ModelSpec, markers []string) string {
	fallback := markers[len(markers)-1]
	if len(spec.Rules) == 0 {
		return fallback
	}
	var b strings.Builder
	for i, r := range spec.Rules {
		kw := "else if"
		if i == 0 {
			kw = "if"
		}
		fmt.Fprintf(&b, "{{ %s %s }}%s", kw, condition(i, r.When), markers[i])
	}
	return b.String() + "{{ else }}" + fallback + "{{ end }}"
}

// toolFlags sets $toolN to whether the tool ToolOffered of rule N names is offered. Templates
// have no substring test, so each rule gets its own flag from a loop over .Tools.
func toolFlags(rules []Rule) string {
	var b strings.Builder
	for i, r := range rules {
		if r.When.ToolOffered == "" {
			continue
		}
		fmt.Fprintf(&b, `{{- $tool%d := false }}{{ range .Tools }}{{ if eq .Function.Name %s }}{{ $tool%d = true }}{{ end }}{{ end }}`,
			i, strconv.Quote(r.When.ToolOffered), i)
	}
	return b.String()
}

// condition is the template expression for rule i's When; "true" for the zero When.
func condition(i int, w When) string {
	var c []string
	if w.LastRole != "" {
		c = append(c, fmt.Sprintf("(eq $role %s)", strconv.Quote(w.LastRole)))
	}
	if w.LastPrefix != "" {
		// and short-circuits, so slice never runs past a shorter content.
		n := len(w.LastPrefix)
		c = append(c, fmt.Sprintf("(ge (len $content) %d)", n), fmt.Sprintf("(eq (slice $content 0 %d) %s)", n, strconv.Quote(w.LastPrefix)))
	}
	if w.ToolOffered != "" {
		c = append(c, fmt.Sprintf("$tool%d", i))
	}
	if w.ToolResults > 0 {
		c = append(c, fmt.Sprintf("(eq (len $toolResults) %d)", w.ToolResults))
	}
	if w.UserTurns > 0 {
		c = append(c, fmt.Sprintf("(eq (len $userTurns) %d)", w.UserTurns))
	}
	switch len(c) {
	case 0:
		return "true"
	case 1:
		return c[0]
	}
	return "and " + strings.Join(c, " ")
}
