package textcalls

import (
	"strings"

	"github.com/ollama/ollama/harmony"

	"pi/provider"
)

// Shapes written with a model's special tokens.

// tokenAt returns the length of the first of toks at the start of s, or 0.
func tokenAt(s string, toks []string) int {
	for _, t := range toks {
		if strings.HasPrefix(s, t) {
			return len(t)
		}
	}
	return 0
}

// indexToken finds the first of toks in s: its index and length, or -1.
func indexToken(s string, toks []string) (int, int) {
	best, n := -1, 0
	for _, t := range toks {
		if j := strings.Index(s, t); j >= 0 && (best < 0 || j < best) {
			best, n = j, len(t)
		}
	}
	return best, n
}

// DeepSeek's tokens as the models write them (full-width bars, ▁ between words) and as they
// leak through tokenizers that normalise them (ASCII bars and underscores).
var (
	dsCallsBegin = []string{"<｜tool▁calls▁begin｜>", "<|tool_calls_begin|>", "<|tool▁calls▁begin|>"}
	dsCallsEnd   = []string{"<｜tool▁calls▁end｜>", "<|tool_calls_end|>", "<|tool▁calls▁end|>"}
	dsCallBegin  = []string{"<｜tool▁call▁begin｜>", "<|tool_call_begin|>", "<|tool▁call▁begin|>"}
	dsCallEnd    = []string{"<｜tool▁call▁end｜>", "<|tool_call_end|>", "<|tool▁call▁end|>"}
	dsSep        = []string{"<｜tool▁sep｜>", "<|tool_sep|>", "<|tool▁sep|>"}
)

// deepSeek reads DeepSeek V3/R1's <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME followed by a
// ```json block, and V3.1's <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}, each closed by
// <｜tool▁call▁end｜>, several in a row, optionally inside <｜tool▁calls▁begin｜>…end.
func deepSeek(sc *scan, i int) result {
	text := sc.text
	pos := i
	if n := tokenAt(text[pos:], dsCallsBegin); n > 0 {
		pos += n
	}
	var calls []Call
	for {
		p := skipSpace(text, pos)
		n := tokenAt(text[p:], dsCallBegin)
		if n == 0 {
			if pending(sc, p, dsCallBegin...) {
				return undecided()
			}
			break
		}
		bodyStart := p + n
		j, m := sc.indexToken(bodyStart, dsCallEnd)
		bodyEnd, end := j, j+m
		if j < 0 {
			if !sc.final {
				return undecided()
			}
			bodyEnd, end = len(text), len(text)
		}
		c, ok := deepSeekCall(sc, text[bodyStart:bodyEnd])
		if !ok {
			return notCall(i + 1)
		}
		calls, pos = append(calls, c), end
	}
	if p := skipSpace(text, pos); calls != nil {
		if n := tokenAt(text[p:], dsCallsEnd); n > 0 {
			pos = p + n
		} else if pending(sc, p, dsCallsEnd...) {
			return undecided()
		}
	}
	return callsOrNot(calls, pos, i+1)
}

func deepSeekCall(sc *scan, body string) (Call, bool) {
	s, n := indexToken(body, dsSep)
	if s < 0 {
		return Call{}, false
	}
	name, rest := strings.TrimSpace(body[:s]), body[s+n:]
	if name == "function" { // V3: the type first, then the name on the same line as the json block
		nl := strings.IndexAny(rest, "\n`{")
		if nl < 0 {
			return Call{}, false
		}
		name, rest = strings.TrimSpace(rest[:nl]), rest[nl:]
		rest = strings.TrimSpace(rest)
		rest = strings.TrimPrefix(rest, "```json")
		rest = strings.TrimPrefix(rest, "```")
		rest = strings.TrimSuffix(strings.TrimSpace(rest), "```")
	}
	if !validName(name) {
		return Call{}, false
	}
	args, err := provider.ParseArguments(strings.TrimSpace(rest))
	return Call{Name: name, Arguments: args}, err == nil
}

const (
	kimiSectionBegin = "<|tool_calls_section_begin|>"
	kimiSectionEnd   = "<|tool_calls_section_end|>"
	kimiCallBegin    = "<|tool_call_begin|>"
	kimiArgBegin     = "<|tool_call_argument_begin|>"
	kimiCallEnd      = "<|tool_call_end|>"
)

// kimi reads Kimi K2's <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}
// <|tool_call_end|>, several in a row, optionally inside the tool-calls section tokens.
func kimi(sc *scan, i int) result {
	text := sc.text
	pos := i
	if strings.HasPrefix(text[pos:], kimiSectionBegin) {
		pos += len(kimiSectionBegin)
	}
	var calls []Call
	for {
		p := skipSpace(text, pos)
		if !strings.HasPrefix(text[p:], kimiCallBegin) {
			if pending(sc, p, kimiCallBegin) {
				return undecided()
			}
			break
		}
		bodyStart := p + len(kimiCallBegin)
		bodyEnd, end, ok := closeOrEnd(sc, bodyStart, kimiCallEnd)
		if !ok {
			return undecided()
		}
		id, raw, found := strings.Cut(sc.text[bodyStart:bodyEnd], kimiArgBegin)
		name := strings.TrimPrefix(strings.TrimSpace(id), "functions.")
		if c := strings.LastIndexByte(name, ':'); c >= 0 {
			name = name[:c]
		}
		args, err := provider.ParseArguments(strings.TrimSpace(raw))
		if !found || err != nil || !validName(name) {
			return notCall(i + 1)
		}
		calls, pos = append(calls, Call{Name: name, Arguments: args}), end
	}
	if p := skipSpace(text, pos); calls != nil && strings.HasPrefix(text[p:], kimiSectionEnd) {
		pos = p + len(kimiSectionEnd)
	} else if calls != nil && pending(sc, p, kimiSectionEnd) {
		return undecided()
	}
	return callsOrNot(calls, pos, i+1)
}

const (
	harmonyStart   = "<|start|>"
	harmonyChannel = "<|channel|>"
	harmonyMessage = "<|message|>"
)

var harmonyEnds = []string{"<|call|>", "<|end|>", "<|return|>"}

// harmonyCalls reads gpt-oss's harmony messages: <|channel|>commentary to=functions.NAME
// <|constrain|>json<|message|>{…}<|call|>, with or without the <|start|>assistant header and
// <|constrain|>, with the analysis message that often precedes it (kept as thinking) and a final
// message after it (kept as text). Ollama's harmony parser reads each message's header.
func harmonyCalls(sc *scan, i int) result {
	text := sc.text
	var r result
	pos := i
	for {
		p := skipSpace(text, pos)
		if !strings.HasPrefix(text[p:], harmonyStart) && !strings.HasPrefix(text[p:], harmonyChannel) {
			if pending(sc, p, harmonyStart, harmonyChannel) {
				return undecided()
			}
			break
		}
		h := strings.Index(text[p:], harmonyMessage)
		if h < 0 || h > 512 {
			if h < 0 && !sc.final && len(text)-p <= 512 {
				return undecided()
			}
			break
		}
		bodyStart := p + h + len(harmonyMessage)
		j, n := sc.indexToken(bodyStart, harmonyEnds)
		bodyEnd, end := j, j+n
		if j < 0 {
			if !sc.final {
				return undecided()
			}
			bodyEnd, end = len(text), len(text)
		}
		hdr, content := harmonyMessageOf(text[p:p+h], text[bodyStart:bodyEnd])
		switch {
		case strings.HasPrefix(hdr.Recipient, "functions."):
			args, err := provider.ParseArguments(strings.TrimSpace(content))
			if err != nil {
				return notCall(i + 1)
			}
			r.calls = append(r.calls, Call{Name: strings.TrimPrefix(hdr.Recipient, "functions."), Arguments: args})
		case hdr.Channel == "analysis" && r.calls == nil:
			r.thinking += content
		case hdr.Channel == "final" && r.calls != nil:
			r.keep += content
		default:
			return callsOrNot(r.calls, max(r.end, i+1), i+1) // not part of the calls
		}
		pos, r.end = end, end
	}
	if r.calls == nil {
		return notCall(i + 1)
	}
	return r
}

// harmonyMessageOf parses one message's header and content with Ollama's harmony parser; the
// input is rebuilt so that it always has the role the parser needs and one message only.
func harmonyMessageOf(header, body string) (harmony.HarmonyHeader, string) {
	header = strings.TrimPrefix(header, harmonyStart)
	if strings.HasPrefix(header, harmonyChannel) || strings.TrimSpace(header) == "" {
		header = "assistant" + header
	}
	p := &harmony.HarmonyParser{MessageStartTag: harmonyStart, MessageEndTag: "<|end|>", HeaderEndTag: harmonyMessage}
	var hdr harmony.HarmonyHeader
	var content strings.Builder
	for _, ev := range p.AddContent(harmonyStart + header + harmonyMessage + body + "<|end|>") {
		switch e := ev.(type) {
		case harmony.HarmonyEventHeaderComplete:
			hdr = e.Header
		case harmony.HarmonyEventContentEmitted:
			content.WriteString(e.Content)
		}
	}
	return hdr, content.String()
}
