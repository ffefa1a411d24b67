package textcalls

import (
	"strconv"
	"strings"

	"pi/provider"
)

// literal parses the argument syntaxes that are not JSON: Python's (name(key="v", n=1, flag=True)),
// Gemma's (call:NAME{key:<|"|>v<|"|>,n:1}) and MiniMax's leaked {tool => "NAME", args => {…}}.
// quote is a model's string token ("" when it has none), assign the key/value separator.
type literal struct {
	s      string
	pos    int
	quote  string
	assign string
}

func (l *literal) space() { l.pos = skipSpace(l.s, l.pos) }

func (l *literal) eat(tok string) bool {
	l.space()
	if strings.HasPrefix(l.s[l.pos:], tok) {
		l.pos += len(tok)
		return true
	}
	return false
}

// pairs reads key assign value, separated by commas, up to close (not consumed).
func (l *literal) pairs(close byte) (map[string]any, bool) {
	out := map[string]any{}
	for {
		l.space()
		if l.pos < len(l.s) && l.s[l.pos] == close {
			return out, true
		}
		key, ok := l.key()
		if !ok || !l.eat(l.assign) {
			return nil, false
		}
		v, ok := l.value()
		if !ok {
			return nil, false
		}
		out[key] = v
		l.space()
		if !l.eat(",") {
			l.space()
			return out, l.pos < len(l.s) && l.s[l.pos] == close
		}
	}
}

func (l *literal) key() (string, bool) {
	l.space()
	if v, ok := l.str(); ok {
		return v, true
	}
	start := l.pos
	for l.pos < len(l.s) && (isIdent(l.s[l.pos]) || l.s[l.pos] == '-') {
		l.pos++
	}
	return l.s[start:l.pos], l.pos > start
}

// str reads a quoted string: the model's quote token, or Python's ' or ", with escapes.
func (l *literal) str() (string, bool) {
	rest := l.s[l.pos:]
	if l.quote != "" && strings.HasPrefix(rest, l.quote) {
		e := strings.Index(rest[len(l.quote):], l.quote)
		if e < 0 {
			return "", false
		}
		l.pos += len(l.quote)*2 + e
		return rest[len(l.quote) : len(l.quote)+e], true
	}
	if rest == "" || rest[0] != '"' && rest[0] != '\'' {
		return "", false
	}
	q := rest[0]
	var b strings.Builder
	for j := 1; j < len(rest); j++ {
		switch c := rest[j]; {
		case c == '\\' && j+1 < len(rest):
			j++
			switch e := rest[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		case c == q:
			l.pos += j + 1
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

func (l *literal) value() (any, bool) {
	l.space()
	if l.pos >= len(l.s) {
		return nil, false
	}
	if v, ok := l.str(); ok {
		return v, true
	}
	switch l.s[l.pos] {
	case '{':
		l.pos++
		save := l.assign
		if l.assign != "=>" {
			l.assign = ":"
		}
		m, ok := l.pairs('}')
		l.assign = save
		if !ok {
			return nil, false
		}
		l.pos++
		return m, true
	case '[':
		l.pos++
		var list []any
		for {
			if l.eat("]") {
				return append([]any{}, list...), true
			}
			v, ok := l.value()
			if !ok {
				return nil, false
			}
			list = append(list, v)
			if !l.eat(",") && !l.eat("]") {
				return nil, false
			} else if l.s[l.pos-1] == ']' {
				return list, true
			}
		}
	}
	return l.word()
}

// word reads a number, true/false/null (or Python's True/False/None).
func (l *literal) word() (any, bool) {
	start := l.pos
	for l.pos < len(l.s) && (isIdent(l.s[l.pos]) || strings.IndexByte("+-.", l.s[l.pos]) >= 0) {
		l.pos++
	}
	w := l.s[start:l.pos]
	switch w {
	case "true", "True":
		return true, true
	case "false", "False":
		return false, true
	case "null", "None":
		return nil, true
	}
	if f, err := strconv.ParseFloat(w, 64); err == nil && !strings.ContainsAny(w, "xXpPnN_") {
		return f, true
	}
	return nil, false
}

// gemma reads Gemma 4's <|tool_call>call:NAME{key:<|"|>v<|"|>}<tool_call|> and FunctionGemma's
// <start_function_call>call:NAME{key:<escape>v<escape>}<end_function_call>.
func gemma(sc *scan, i int, opener, closeTag, quote string) result {
	var calls []Call
	pos := i
	for strings.HasPrefix(sc.text[skipSpace(sc.text, pos):], opener) {
		body := skipSpace(sc.text, pos) + len(opener)
		bodyEnd, end, ok := closeOrEnd(sc, body, closeTag)
		if !ok {
			return undecided()
		}
		c, ok := gemmaCall(sc.text[body:bodyEnd], quote)
		if !ok {
			return notCall(i + 1)
		}
		calls, pos = append(calls, c), end
	}
	if p := skipSpace(sc.text, pos); pending(sc, p, opener) {
		return undecided()
	}
	return callsOrNot(calls, pos, i+1)
}

func gemmaCall(body, quote string) (Call, bool) {
	body = strings.TrimSpace(body)
	rest, ok := strings.CutPrefix(body, "call:")
	brace := strings.IndexByte(rest, '{')
	if !ok || brace < 0 {
		return Call{}, false
	}
	name := strings.TrimSpace(rest[:brace])
	l := &literal{s: rest, pos: brace + 1, quote: quote, assign: ":"}
	args, ok := l.pairs('}')
	if !ok || !validName(name) || strings.TrimSpace(rest[l.pos+1:]) != "" {
		return Call{}, false
	}
	return Call{Name: name, Arguments: args}, true
}

// minimaxBracket reads the form MiniMax models leak: [TOOL_CALL]{tool => "NAME", args =>
// {--key "value" …}}[/TOOL_CALL], the arguments also as JSON or key => value pairs.
func minimaxBracket(sc *scan, i int) result {
	body := i + len("[TOOL_CALL]")
	bodyEnd, end, ok := closeOrEnd(sc, body, "[/TOOL_CALL]")
	if !ok {
		return undecided()
	}
	l := &literal{s: strings.TrimSpace(sc.text[body:bodyEnd]), assign: "=>"}
	if !l.eat("{") || !l.eat("tool") || !l.eat("=>") {
		return notCall(i + 1)
	}
	name, ok := l.value()
	n, _ := name.(string)
	if !ok || !validName(n) || !l.eat(",") || !l.eat("args") || !l.eat("=>") || !l.eat("{") {
		return notCall(i + 1)
	}
	start := l.pos - 1
	e := jsonEnd(l.s, start)
	if e < 0 || strings.TrimSpace(l.s[e:]) != "}" {
		return notCall(i + 1)
	}
	args, ok := minimaxArgs(l.s[start:e])
	if !ok {
		return notCall(end)
	}
	return result{end: end, calls: []Call{{Name: n, Arguments: args}}}
}

// minimaxArgs reads {…} as JSON, as --key "value" flags, or as key => value pairs.
func minimaxArgs(obj string) (map[string]any, bool) {
	if args, err := provider.ParseArguments(obj); err == nil {
		return args, true
	}
	inner := strings.TrimSpace(obj[1 : len(obj)-1])
	if strings.HasPrefix(inner, "--") {
		args := map[string]any{}
		l := &literal{s: inner}
		for l.eat("--") {
			k, ok := l.key()
			if !ok {
				return nil, false
			}
			v, ok := l.value()
			if !ok {
				return nil, false
			}
			args[k] = v
		}
		l.space()
		return args, l.pos == len(inner)
	}
	l := &literal{s: obj, pos: 1, assign: "=>"}
	args, ok := l.pairs('}')
	return args, ok && strings.TrimSpace(obj[l.pos:]) == "}"
}

// pythonicSpot spots an offered tool's name followed by "(" at a line start, or "[" and one;
// a line that so far holds only the beginning of an offered name may become one.
func pythonicSpot(sc *scan, i int) spot {
	j := i
	if sc.text[j] == '[' {
		j++
	}
	start := j
	for j < len(sc.text) && (isIdent(sc.text[j]) || sc.text[j] == '.') {
		j++
	}
	name := sc.text[start:j]
	if name == "" || sc.offered == nil {
		if j == len(sc.text) && sc.text[i] == '[' && !sc.final {
			return spotPartial
		}
		return spotNo
	}
	if j == len(sc.text) {
		if !sc.final && sc.offeredPrefix(name) {
			return spotPartial
		}
		return spotNo
	}
	if sc.text[j] == '(' && sc.offered(name) {
		return spotYes
	}
	return spotNo
}

// pythonic reads NAME(key=value, …) or [NAME(…), NAME(…)] filling the rest of its line, as
// Llama 3.2/4 templates ask for.
func pythonic(sc *scan, i int) result {
	nl := sc.index(i, "\n") - i
	if nl < 0 && !sc.final {
		return undecided()
	}
	line := sc.text[i:]
	if nl >= 0 {
		line = line[:nl]
	}
	end := i + len(line)
	l := &literal{s: strings.TrimSpace(line), assign: "="}
	list := l.eat("[")
	var calls []Call
	for {
		l.space()
		start := l.pos
		for l.pos < len(l.s) && (isIdent(l.s[l.pos]) || l.s[l.pos] == '.') {
			l.pos++
		}
		name := l.s[start:l.pos]
		if name == "" || !l.eat("(") {
			return notCall(end)
		}
		args, ok := l.pairs(')')
		if !ok {
			return notCall(end)
		}
		l.pos++
		calls = append(calls, Call{Name: name, Arguments: args})
		if !list || !l.eat(",") {
			break
		}
	}
	if list && !l.eat("]") || strings.TrimSpace(l.s[l.pos:]) != "" {
		return notCall(end)
	}
	return result{end: end, calls: calls}
}
