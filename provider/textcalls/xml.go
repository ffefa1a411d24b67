package textcalls

import (
	"strings"

	"pi/provider"
)

// The XML-like shapes write each argument as raw text between tags; typed() gives each value
// the type the tool's schema asks for.

// qwenXML reads Qwen3-Coder's <function=NAME><parameter=KEY>VALUE</parameter>…</function>,
// inside <tool_call>…</tool_call> or without the opening tag that models often drop, several in
// a row. A function body that is a JSON object (Llama 3.1's <function=NAME>{…}</function>) is
// read as the arguments.
func qwenXML(sc *scan, i int) result {
	text := sc.text
	var calls []Call
	pos := i
	for {
		p := skipSpace(text, pos)
		wrapped := strings.HasPrefix(text[p:], openHermes)
		if wrapped {
			p = skipSpace(text, p+len(openHermes))
		}
		if !strings.HasPrefix(text[p:], "<function=") {
			if pending(sc, p, openHermes, "<function=") {
				return undecided()
			}
			break
		}
		c, end, r := qwenFunction(sc, p)
		if r != nil {
			if calls != nil && !r.more {
				break // what follows the calls is not one: they end here
			}
			return *r
		}
		if wrapped || strings.HasPrefix(text[skipSpace(text, end):], closeHermes) {
			end = skipSpace(text, end)
			if !strings.HasPrefix(text[end:], closeHermes) {
				if !sc.final && len(text)-end < len(closeHermes) && strings.HasPrefix(closeHermes, text[end:]) {
					return undecided()
				}
			} else {
				end += len(closeHermes)
			}
		}
		calls, pos = append(calls, c), end
	}
	return callsOrNot(calls, pos, i+1)
}

// qwenFunction reads one <function=NAME>…</function> at p; r is set when it is not a call or
// needs more text.
func qwenFunction(sc *scan, p int) (Call, int, *result) {
	text := sc.text
	nameStart := p + len("<function=")
	gt := strings.IndexByte(text[nameStart:], '>')
	if gt < 0 || gt > 128 {
		r := undecided()
		if sc.final || len(text)-nameStart > 128 {
			r = notCall(nameStart)
		}
		return Call{}, 0, &r
	}
	name := strings.TrimSpace(text[nameStart : nameStart+gt])
	if !validName(name) || !sc.offered(name) {
		r := notCall(nameStart)
		return Call{}, 0, &r
	}
	bodyStart := nameStart + gt + 1
	bodyEnd, end, ok := closeOrEnd(sc, bodyStart, "</function>")
	if !ok {
		r := undecided()
		return Call{}, 0, &r
	}
	args, ok := xmlParams(sc, name, text[bodyStart:bodyEnd], "<parameter=", ">", "</parameter>")
	if !ok {
		r := notCall(end)
		return Call{}, 0, &r
	}
	return Call{Name: name, Arguments: args}, end, nil
}

// xmlParams reads a sequence of open KEY sep VALUE close, nothing else but white space between
// them; a body that is a JSON object is taken as the arguments whole.
func xmlParams(sc *scan, tool, body, open, sep, close string) (map[string]any, bool) {
	if t := strings.TrimSpace(body); strings.HasPrefix(t, "{") {
		args, err := provider.ParseArguments(t)
		return args, err == nil
	}
	args := map[string]any{}
	for pos := 0; ; {
		pos = skipSpace(body, pos)
		if pos == len(body) {
			return args, true
		}
		if !strings.HasPrefix(body[pos:], open) {
			return nil, false
		}
		k := pos + len(open)
		s := strings.Index(body[k:], sep)
		if s < 0 {
			return nil, false
		}
		key := unquote(strings.TrimSpace(body[k : k+s]))
		v := k + s + len(sep)
		e := strings.Index(body[v:], close)
		if e < 0 {
			e = len(body) - v // the last value may lose its closing tag
		}
		if key == "" {
			return nil, false
		}
		args[key] = typed(body[v:v+e], sc.paramType(tool, key))
		pos = min(len(body), v+e+len(close))
	}
}

// glm reads GLM-4.5/4.6/4.7's <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…
// </tool_call>, also with no arguments.
func glm(sc *scan, i int) result {
	text := sc.text
	p := i + len(openHermes)
	n := p
	for n < len(text) && (isIdent(text[n]) || text[n] == '.' || text[n] == '-') {
		n++
	}
	name := text[p:n]
	if n == len(text) && !sc.final {
		return undecided()
	}
	if name == "" || !sc.offered(name) {
		return notCall(p)
	}
	bodyEnd, end, ok := closeOrEnd(sc, n, closeHermes)
	if !ok {
		return undecided()
	}
	body := text[n:bodyEnd]
	args := map[string]any{}
	for pos := skipSpace(body, 0); pos < len(body); pos = skipSpace(body, pos) {
		k, rest, ok := between(body[pos:], "<arg_key>", "</arg_key>")
		if !ok {
			return notCall(end)
		}
		r := skipSpace(body, pos+rest)
		v, rest2, ok := between(body[r:], "<arg_value>", "</arg_value>")
		if !ok {
			return notCall(end)
		}
		args[strings.TrimSpace(k)] = typed(v, sc.paramType(name, strings.TrimSpace(k)))
		pos = r + rest2
	}
	return result{end: end, calls: []Call{{Name: name, Arguments: args}}}
}

// between reads open X close at the start of s: X and the length read.
func between(s, open, close string) (string, int, bool) {
	if !strings.HasPrefix(s, open) {
		return "", 0, false
	}
	e := strings.Index(s[len(open):], close)
	if e < 0 {
		return "", 0, false
	}
	return s[len(open) : len(open)+e], len(open) + e + len(close), true
}

// invokeTags are the tags of a shape written as invokes: MiniMax M2's, and DeepSeek V3.2's with
// its token in each tag (<｜DSML｜invoke …>). Never written.
type invokeTags struct {
	invoke, param, endInvoke, endParam, wrapOpen, wrapClose string
}

var (
	minimaxTags = invokeTags{"<invoke", "<parameter", "</invoke>", "</parameter>", "<minimax:tool_call>", "</minimax:tool_call>"}
	dsmlTags    = invokeTags{"<｜DSML｜invoke", "<｜DSML｜parameter", "</｜DSML｜invoke>", "</｜DSML｜parameter>", "<｜DSML｜function_calls>", "</｜DSML｜function_calls>"}
)

// invokes reads <invoke name="NAME"><parameter name="K">V</parameter></invoke>, several in a
// row, optionally wrapped in wrapOpen…wrapClose.
func invokes(sc *scan, i int, t *invokeTags) result {
	invoke, param, endInvoke, endParam, wrapOpen, wrapClose := t.invoke, t.param, t.endInvoke, t.endParam, t.wrapOpen, t.wrapClose
	text := sc.text
	pos := i
	wrapped := strings.HasPrefix(text[i:], wrapOpen)
	if wrapped {
		pos += len(wrapOpen)
	}
	var calls []Call
	for {
		p := skipSpace(text, pos)
		if !strings.HasPrefix(text[p:], invoke) {
			if pending(sc, p, invoke, wrapClose) {
				return undecided()
			}
			break
		}
		gt := sc.index(p, ">") - p
		if gt < 0 {
			if !sc.final {
				return undecided()
			}
			return notCall(i + 1)
		}
		name, ok := attr(text[p:p+gt], "name")
		if !ok || !sc.offered(name) {
			return notCall(i + 1)
		}
		bodyEnd, end, ok := closeOrEnd(sc, p+gt+1, endInvoke)
		if !ok {
			return undecided()
		}
		args, ok := attrParams(sc, name, text[p+gt+1:bodyEnd], param, endParam)
		if !ok {
			return notCall(end)
		}
		calls, pos = append(calls, Call{Name: name, Arguments: args}), end
	}
	if p := skipSpace(text, pos); wrapped && strings.HasPrefix(text[p:], wrapClose) {
		pos = p + len(wrapClose)
	} else if wrapped && pending(sc, p, wrapClose) {
		return undecided()
	}
	return callsOrNot(calls, pos, i+1)
}

// attrParams reads <param name="K" …>V</param> (open is "<param"), nothing else between them.
// A string="false" attribute (DeepSeek V3.2) says the value is JSON.
func attrParams(sc *scan, tool, body, open, close string) (map[string]any, bool) {
	if t := strings.TrimSpace(body); strings.HasPrefix(t, "{") {
		args, err := provider.ParseArguments(t)
		return args, err == nil
	}
	args := map[string]any{}
	for pos := skipSpace(body, 0); pos < len(body); pos = skipSpace(body, pos) {
		if !strings.HasPrefix(body[pos:], open) {
			return nil, false
		}
		gt := strings.IndexByte(body[pos:], '>')
		if gt < 0 {
			return nil, false
		}
		tag := body[pos : pos+gt]
		key, ok := attr(tag, "name")
		if !ok {
			return nil, false
		}
		v := pos + gt + 1
		e := strings.Index(body[v:], close)
		if e < 0 {
			return nil, false
		}
		typ := sc.paramType(tool, key)
		if s, ok := attr(tag, "string"); ok && s == "false" {
			typ = "json" // the value is JSON whatever the schema says
		}
		args[key] = typed(body[v:v+e], typ)
		pos = v + e + len(close)
	}
	return args, true
}

// attr returns the value of name="…" (or '…', or unquoted) in a tag's text.
func attr(tag, name string) (string, bool) {
	for pos := 0; ; {
		j := strings.Index(tag[pos:], name+"=")
		if j < 0 {
			return "", false
		}
		j += pos
		pos = j + len(name) + 1
		if j > 0 && tag[j-1] != ' ' && tag[j-1] != '\t' && tag[j-1] != '\n' {
			continue // e.g. tool_name= when looking for name=
		}
		rest := tag[pos:]
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			if e := strings.IndexByte(rest[1:], rest[0]); e >= 0 {
				return rest[1 : 1+e], true
			}
			return "", false
		}
		e := strings.IndexAny(rest, " \t\n/>")
		if e < 0 {
			e = len(rest)
		}
		return rest[:e], e > 0
	}
}

// attrTag reads a tag that carries the name as an attribute and the arguments in its body:
// <tool_call name="NAME" id="…">{…}</tool_call>, and MiniCPM's <function name="NAME"><param
// name="K">V</param></function>.
func attrTag(sc *scan, i int, closeTag, paramOpen, paramClose string) result {
	text := sc.text
	gt := strings.IndexByte(text[i:], '>')
	if gt < 0 || gt > 512 {
		if !sc.final && gt < 0 && len(text)-i <= 512 {
			return undecided()
		}
		return notCall(i + 1)
	}
	name, ok := attr(text[i+1:i+gt], "name")
	if !ok || !sc.offered(name) {
		return notCall(i + 1)
	}
	bodyEnd, end, ok := closeOrEnd(sc, i+gt+1, closeTag)
	if !ok {
		return undecided()
	}
	args, ok := attrParams(sc, name, text[i+gt+1:bodyEnd], paramOpen, paramClose)
	if !ok {
		return notCall(end)
	}
	return result{end: end, calls: []Call{{Name: name, Arguments: args}}}
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func validName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isIdent(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}
