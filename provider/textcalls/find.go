// Package textcalls recovers tool calls that a model wrote as text: small and quantised models,
// and servers whose chat template does not parse tool calls, put the call in the reply's text
// instead of the structured field. It knows the shapes they use — Hermes/Qwen
// <tool_call>{…}</tool_call>, Llama 3.x <|python_tag|>{…} or a bare {"name","parameters"}
// object on its own line, Mistral [TOOL_CALLS][…] (and its name[ARGS]{…} form), a fenced ```json
// block holding a call — and turns one into a real call only when it names a tool the request
// offered and is not a call the user's own prompt quoted in a code block.
//
// Find is the parser. Stream sits between an adapter and its provider.Builder: it holds back
// text that may be the start of such markup, so a front end never shows it as prose, and at the
// end of a reply with no structured calls turns what it recognised into tool calls.
//
// It owns the recognition of these shapes only; it must not decide which tools exist or run
// anything.
package textcalls

import (
	"strings"

	"pi/provider"
)

// Formats, as recorded in a recovered call's details.
const (
	FormatHermes    = "tool_call"   // <tool_call>{…}</tool_call>
	FormatPythonTag = "python_tag"  // <|python_tag|>{…}
	FormatMistral   = "TOOL_CALLS"  // [TOOL_CALLS][…]
	FormatFenced    = "fenced_json" // ```json {…} ```
	FormatBare      = "bare_json"   // {"name": …, "parameters": …} on its own line
)

// Call is one tool call read from text.
type Call struct {
	Name      string
	Arguments map[string]any
}

// Match is one piece of markup holding calls: Text[Start:End] is the markup.
type Match struct {
	Start, End int
	Format     string
	Calls      []Call
}

const (
	openHermes  = "<tool_call>"
	closeHermes = "</tool_call>"
	openPython  = "<|python_tag|>"
	openMistral = "[TOOL_CALLS]"
	argsMistral = "[ARGS]"
	fence       = "```"
)

// tagOpeners may start anywhere in the text; fences and bare objects only at a line start.
var tagOpeners = [...]string{openHermes, openPython, openMistral}

// candidate kinds
type kind int

const (
	kindNone kind = iota
	kindHermes
	kindPython
	kindMistral
	kindFence
	kindBare
)

// Find returns the markup in text[from:] whose calls all name offered tools, in order. Line
// starts are judged on the whole text, so a caller holding a tail of a longer reply passes the
// whole reply and the tail's start.
func Find(text string, from int, offered func(string) bool) []Match {
	var out []Match
	pos := from
	for pos < len(text) {
		i, k, _ := nextCandidate(text, pos)
		if k == kindNone {
			break
		}
		end, m, complete := shapeAt(text, i, k, true)
		if !complete || end <= i {
			pos = i + 1
			continue
		}
		if m != nil && allOffered(m.Calls, offered) {
			out = append(out, *m)
		}
		pos = end
	}
	return out
}

func allOffered(calls []Call, offered func(string) bool) bool {
	if len(calls) == 0 {
		return false
	}
	for _, c := range calls {
		if offered == nil || !offered(c.Name) {
			return false
		}
	}
	return true
}

// nextCandidate finds the first place at or after from where markup may start. partial says the
// text ends inside what may become an opener (e.g. "<tool_"), which a stream must hold back.
func nextCandidate(text string, from int) (int, kind, bool) {
	for i := from; i < len(text); i++ {
		switch c := text[i]; c {
		case '<', '[':
			for j, op := range tagOpeners {
				if strings.HasPrefix(text[i:], op) {
					return i, kind(int(kindHermes) + j), false
				}
				if len(text)-i < len(op) && strings.HasPrefix(op, text[i:]) {
					return i, kindNone, true
				}
			}
		case '`', '{':
			if !atLineStart(text, i) {
				continue
			}
			if c == '{' {
				return i, kindBare, false
			}
			if strings.HasPrefix(text[i:], fence) {
				return i, kindFence, false
			}
			if strings.HasPrefix(fence, text[i:]) {
				return i, kindNone, true
			}
		}
	}
	return -1, kindNone, false
}

// atLineStart reports whether only spaces or tabs stand between the last newline (or the start
// of the text) and i.
func atLineStart(text string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch text[j] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// shapeAt reads the markup of kind k at i. It returns where the markup ends, the match when it
// holds calls (nil when it is complete but holds none: plain text), and whether it is complete;
// final says the text will not grow, so markup cut off by the end of the reply counts as ended.
func shapeAt(text string, i int, k kind, final bool) (int, *Match, bool) {
	switch k {
	case kindHermes:
		return hermesAt(text, i, final)
	case kindPython:
		return pythonAt(text, i, final)
	case kindMistral:
		return mistralAt(text, i, final)
	case kindFence:
		return fenceAt(text, i, final)
	case kindBare:
		if j := skipSpace(text, i+1); j < len(text) && text[j] != '"' && text[j] != '\'' {
			return j, nil, true // not an object with a key first: prose
		}
		end := jsonEnd(text, i)
		if end < 0 {
			return len(text), nil, final
		}
		calls := parseCalls(text[i:end], true)
		if calls == nil {
			return end, nil, true
		}
		return end, &Match{Start: i, End: end, Format: FormatBare, Calls: calls}, true
	}
	return i + 1, nil, true
}

func hermesAt(text string, i int, final bool) (int, *Match, bool) {
	body := i + len(openHermes)
	end, bodyEnd := len(text), len(text)
	if j := strings.Index(text[body:], closeHermes); j >= 0 {
		bodyEnd, end = body+j, body+j+len(closeHermes)
	} else if !final {
		return len(text), nil, false
	}
	calls := parseCalls(text[body:bodyEnd], false)
	if calls == nil {
		return end, nil, true
	}
	return end, &Match{Start: i, End: end, Format: FormatHermes, Calls: calls}, true
}

// pythonAt reads <|python_tag|> followed by one or more JSON objects, separated by ";" or
// spaces, as Llama 3.x writes them.
func pythonAt(text string, i int, final bool) (int, *Match, bool) {
	pos := i + len(openPython)
	var calls []Call
	end := pos
	for {
		j := skipSpace(text, pos)
		if j < len(text) && text[j] == ';' {
			j = skipSpace(text, j+1)
		}
		if j >= len(text) {
			if !final {
				return len(text), nil, false
			}
			break
		}
		if text[j] != '{' {
			break
		}
		e := jsonEnd(text, j)
		if e < 0 {
			return len(text), nil, final
		}
		c := parseCalls(text[j:e], false)
		if c == nil {
			return e, nil, true
		}
		calls, pos, end = append(calls, c...), e, e
	}
	if calls == nil {
		return end, nil, true
	}
	return end, &Match{Start: i, End: end, Format: FormatPythonTag, Calls: calls}, true
}

// mistralAt reads [TOOL_CALLS] followed by a JSON array or object of calls, or by the newer
// name[ARGS]{…} form, possibly repeated.
func mistralAt(text string, i int, final bool) (int, *Match, bool) {
	pos := skipSpace(text, i+len(openMistral))
	if pos >= len(text) {
		return len(text), nil, final
	}
	if c := text[pos]; c == '[' || c == '{' {
		e := jsonEnd(text, pos)
		if e < 0 {
			return len(text), nil, final
		}
		calls := parseCalls(text[pos:e], false)
		if calls == nil {
			return e, nil, true
		}
		return e, &Match{Start: i, End: e, Format: FormatMistral, Calls: calls}, true
	}
	var calls []Call
	end := pos
	for {
		a := strings.Index(text[pos:], argsMistral)
		if a < 0 || a > 128 {
			break
		}
		name := strings.TrimSpace(text[pos : pos+a])
		j := skipSpace(text, pos+a+len(argsMistral))
		if j >= len(text) || text[j] != '{' {
			break
		}
		e := jsonEnd(text, j)
		if e < 0 {
			return len(text), nil, final
		}
		args, err := provider.ParseArguments(text[j:e])
		if err != nil || name == "" || strings.ContainsAny(name, " \n\t{}") {
			break
		}
		calls = append(calls, Call{Name: name, Arguments: args})
		end = e
		if pos = skipSpace(text, e); strings.HasPrefix(text[pos:], openMistral) {
			pos = skipSpace(text, pos+len(openMistral))
		}
	}
	if calls == nil {
		if !final && len(text)-pos < 128 && !strings.Contains(text[pos:], "\n") {
			return len(text), nil, false // the name may still be arriving
		}
		return end + 1, nil, true
	}
	return end, &Match{Start: i, End: end, Format: FormatMistral, Calls: calls}, true
}

// fenceAt reads a fenced block. One tagged json (or untagged, or tool_call) may hold calls; any
// other block is skipped whole, since a call shown in a code example is not a call.
func fenceAt(text string, i int, final bool) (int, *Match, bool) {
	nl := strings.IndexByte(text[i:], '\n')
	if nl < 0 {
		return len(text), nil, final
	}
	info := strings.ToLower(strings.TrimSpace(text[i+len(fence) : i+nl]))
	bodyStart := i + nl + 1
	bodyEnd, end := closingFence(text, bodyStart)
	if end < 0 {
		if !final && callFenceInfo(info) {
			return len(text), nil, false
		}
		return len(text), nil, true
	}
	if !callFenceInfo(info) {
		return end, nil, true
	}
	calls := parseCalls(text[bodyStart:bodyEnd], true)
	if calls == nil {
		return end, nil, true
	}
	return end, &Match{Start: i, End: end, Format: FormatFenced, Calls: calls}, true
}

func callFenceInfo(info string) bool {
	switch info {
	case "", "json", "tool_call", "tool_code", "tool":
		return true
	}
	return false
}

// closingFence finds the line that closes a fence opened before from: the body's end and the
// end of the closing line, or -1, -1.
func closingFence(text string, from int) (int, int) {
	for pos := from; pos <= len(text); {
		line := text[pos:]
		nl := strings.IndexByte(line, '\n')
		if nl >= 0 {
			line = line[:nl]
		}
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "`")) == "" {
			return pos, pos + len(line)
		}
		if nl < 0 {
			break
		}
		pos += nl + 1
	}
	return -1, -1
}

func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}

// jsonEnd returns the end of the JSON object or array that starts at i, or -1 when the text ends
// first. It follows strings and escapes, nothing more: the value is parsed afterwards.
func jsonEnd(text string, i int) int {
	depth, inString, escaped := 0, false, false
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// parseCalls reads a call object or an array of them. strict is for markup without a tag (a bare
// object, a fenced block): there the object must carry arguments or parameters as well as a
// name, so JSON that merely has a "name" field stays text.
func parseCalls(body string, strict bool) []Call {
	body = strings.TrimSpace(body)
	if body == "" || (body[0] != '{' && body[0] != '[') {
		return nil
	}
	v, err := provider.ParseLenient(body)
	if err != nil {
		return nil
	}
	items, ok := v.([]any)
	if !ok {
		items = []any{v}
	}
	calls := make([]Call, 0, len(items))
	for _, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil
		}
		c, ok := callOf(obj, strict)
		if !ok {
			return nil
		}
		calls = append(calls, c)
	}
	if len(calls) == 0 {
		return nil
	}
	return calls
}

// callOf reads {"name", "arguments"|"parameters"}, also nested as OpenAI writes it:
// {"type":"function","function":{"name","arguments"}}.
func callOf(obj map[string]any, strict bool) (Call, bool) {
	if fn, ok := obj["function"].(map[string]any); ok {
		obj = fn
	}
	name, ok := obj["name"].(string)
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Call{}, false
	}
	raw, has := obj["arguments"]
	if !has {
		raw, has = obj["parameters"]
	}
	if !has && strict {
		return Call{}, false
	}
	switch a := raw.(type) {
	case nil:
		return Call{Name: name, Arguments: map[string]any{}}, true
	case map[string]any:
		return Call{Name: name, Arguments: a}, true
	case string:
		args, err := provider.ParseArguments(a)
		return Call{Name: name, Arguments: args}, err == nil
	}
	return Call{}, false
}
