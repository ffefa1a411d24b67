package textcalls

import (
	"strings"
	"unicode/utf8"

	"pi/provider"
)

// jsonEnd returns the end of the JSON object or array that starts at i, or -1 when the text ends
// first. It follows strings and escapes, nothing more: the value is parsed afterwards.
func jsonEnd(text string, i int) int {
	var st jsonState
	return st.end(text, i)
}

// jsonState is how far jsonEnd got: the depth of brackets and whether it is in a string, or
// just after a backslash in one.
type jsonState struct {
	depth             int
	inString, escaped bool
}

// end reads text from j on: the end of the value, or -1 when the text ends first.
func (st *jsonState) end(text string, j int) int {
	for ; j < len(text); j++ {
		c := text[j]
		switch {
		case st.inString:
			switch {
			case st.escaped:
				st.escaped = false
			case c == '\\':
				st.escaped = true
			case c == '"':
				st.inString = false
			}
		case c == '"':
			st.inString = true
		case c == '{' || c == '[':
			st.depth++
		case c == '}' || c == ']':
			st.depth--
			if st.depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// jsonCalls reads a body of one or more call objects or arrays of them, separated by white
// space, commas or semicolons (several objects in one <tool_call> as Hermes models write them).
// strict is for markup without a tag (a bare object, a list, a fenced block): there each object
// must carry its arguments under a key, so JSON that merely has a "name" field stays text.
func jsonCalls(body string, strict bool) []Call {
	var calls []Call
	for pos := 0; ; {
		pos = skipSpace(body, pos)
		for pos < len(body) && (body[pos] == ',' || body[pos] == ';') {
			pos = skipSpace(body, pos+1)
		}
		if pos == len(body) {
			break
		}
		if body[pos] != '{' && body[pos] != '[' {
			return nil
		}
		e := jsonEnd(body, pos)
		if e < 0 {
			return nil
		}
		c := parseCalls(body[pos:e], strict)
		if c == nil {
			return nil
		}
		calls, pos = append(calls, c...), e
	}
	return calls
}

// parseCalls reads a call object or an array of them.
func parseCalls(body string, strict bool) []Call {
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

// argumentKeys are where the shapes put a call's arguments; callKeys the other keys a call
// object may carry. An object with any other key is not understood, so it is not run.
var (
	argumentKeys = [...]string{"arguments", "parameters", "args", "input"}
	callKeys     = [...]string{"name", "tool_name", "type", "id", "call_id", "index", "function"}
)

// callOf reads {"name", "arguments"|"parameters"|"args"}, also nested as OpenAI writes it
// ({"type":"function","function":{"name","arguments"}}) and Command-R's {"tool_name",
// "parameters"}. Arguments may be an object or a JSON string of one.
func callOf(obj map[string]any, strict bool) (Call, bool) {
	if fn, ok := obj["function"].(map[string]any); ok {
		for k := range obj {
			if k != "function" && k != "type" && k != "id" && k != "index" {
				return Call{}, false
			}
		}
		obj = fn
	}
	name, ok := obj["name"].(string)
	if !ok {
		name, ok = obj["tool_name"].(string)
	}
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Call{}, false
	}
	var raw any
	found := 0
	for k, v := range obj {
		switch {
		case inList(k, argumentKeys[:]):
			raw, found = v, found+1
		case !inList(k, callKeys[:]):
			return Call{}, false // a key pi does not know: the arguments may be there
		}
	}
	if found > 1 || found == 0 && strict {
		return Call{}, false
	}
	args, ok := argumentsOf(raw)
	return Call{Name: name, Arguments: args}, ok
}

func argumentsOf(raw any) (map[string]any, bool) {
	switch a := raw.(type) {
	case nil:
		return map[string]any{}, true
	case map[string]any:
		return a, true
	case string:
		args, err := provider.ParseArguments(a)
		return args, err == nil
	}
	return nil, false
}

func inList(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// jsonTagged reads an opener followed by JSON calls up to closeTag (or, with no closeTag, up to
// the last complete JSON value). A cut-off body counts as ended only in a final scan.
func jsonTagged(sc *scan, i int, opener, closeTag string) result {
	body := i + len(opener)
	if closeTag != "" {
		bodyEnd, end, ok := closeOrEnd(sc, body, closeTag)
		if !ok {
			return undecided()
		}
		return callsOrNot(jsonCalls(sc.text[body:bodyEnd], false), end, body)
	}
	return jsonRun(sc, body, body)
}

// jsonRun reads JSON values from pos for as long as they follow each other (separated by white
// space, ";" or ","): the form without a closing tag.
func jsonRun(sc *scan, pos, resume int) result {
	text := sc.text
	var calls []Call
	end := pos
	for {
		j := skipSpace(text, pos)
		for j < len(text) && (text[j] == ';' || text[j] == ',') {
			j = skipSpace(text, j+1)
		}
		if j >= len(text) {
			if !sc.final {
				return undecided()
			}
			break
		}
		if text[j] != '{' && text[j] != '[' {
			break
		}
		e := sc.jsonEnd(j)
		if e < 0 {
			if !sc.final {
				return undecided()
			}
			return notCall(resume)
		}
		c := parseCalls(text[j:e], false)
		if c == nil {
			return notCall(resume)
		}
		calls, pos, end = append(calls, c...), e, e
	}
	return callsOrNot(calls, end, resume)
}

func callsOrNot(calls []Call, end, resume int) result {
	if calls == nil {
		return notCall(resume)
	}
	return result{end: end, calls: calls}
}

// bareJSON reads a call object or list of calls standing at a line start with no tag.
func bareJSON(sc *scan, i int) result {
	text := sc.text
	if j := skipSpace(text, i+1); j < len(text) && text[j] != '"' && text[j] != '\'' && text[j] != '{' {
		return notCall(j) // not an object with a key first, nor a list of objects: prose
	} else if j == len(text) && !sc.final {
		return undecided()
	}
	end := sc.jsonEnd(i)
	if end < 0 {
		if !sc.final {
			return undecided()
		}
		return notCall(len(text))
	}
	if !sc.mayNameOffered(text[i:end]) {
		return notCall(end)
	}
	return callsOrNot(parseCalls(text[i:end], true), end, end)
}

// mayNameOffered reports whether JSON text may name an offered tool, so that the JSON a reply
// shows is not parsed for nothing. In valid UTF-8 and without \u escapes, the other escapes
// decode to quotes, slashes or control characters: a name without those that a string of the
// JSON holds stands in the text as written.
func (sc *scan) mayNameOffered(raw string) bool {
	if sc.names == nil || strings.Contains(raw, `\u`) || !utf8.ValidString(raw) {
		return true
	}
	for _, n := range sc.names {
		if strings.Contains(raw, n) {
			return true
		}
	}
	return sc.escapableName
}

// escapable reports whether a JSON escape other than \u may stand for r.
func escapable(r rune) bool {
	return r < 0x20 || r == '"' || r == '\'' || r == '\\' || r == '/'
}

// fenced reads a fenced block (``` or ~~~). A json (or untagged, or tool_call) block may hold
// calls; any other block is skipped whole, since markup shown in a code example is not a call.
func fenced(sc *scan, i int) result {
	text := sc.text
	marker := text[i : i+3]
	nl := sc.index(i, "\n")
	if nl < 0 {
		if !sc.final {
			return undecided()
		}
		return notCall(len(text))
	}
	info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(text[i:nl], marker[:1])))
	bodyStart := nl + 1
	bodyEnd, end := sc.closingFence(bodyStart, marker)
	if end < 0 {
		if !sc.final {
			return undecided()
		}
		if !callFenceInfo(info) {
			return notCall(len(text))
		}
		bodyEnd, end = len(text), len(text)
	}
	if !callFenceInfo(info) || !sc.mayNameOffered(text[bodyStart:bodyEnd]) {
		return notCall(end)
	}
	return callsOrNot(jsonCalls(text[bodyStart:bodyEnd], true), end, end)
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
func closingFence(text string, from int, marker string) (int, int) {
	for pos := from; pos <= len(text); {
		line := text[pos:]
		nl := strings.IndexByte(line, '\n')
		if nl >= 0 {
			line = line[:nl]
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]) == "" {
			return pos, pos + len(line)
		}
		if nl < 0 {
			break
		}
		pos += nl + 1
	}
	return -1, -1
}

// commandR reads Action: followed by a fenced json list of {"tool_name", "parameters"}.
func commandR(sc *scan, i int) result {
	j := skipSpace(sc.text, i+len("Action:"))
	if j == len(sc.text) || len(sc.text)-j < 3 && strings.HasPrefix("```", sc.text[j:]) {
		if !sc.final {
			return undecided()
		}
		return notCall(j)
	}
	if !strings.HasPrefix(sc.text[j:], "```") {
		return notCall(j)
	}
	r := fenced(sc, j)
	if r.calls == nil && !r.more {
		return notCall(j) // let the fence be read (and skipped) on its own
	}
	return r
}
