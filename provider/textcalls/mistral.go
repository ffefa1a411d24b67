package textcalls

import (
	"strings"

	"pi/provider"
)

// mistral reads [TOOL_CALLS] followed by a JSON array or object of calls, or by the newer
// name[ARGS]{…} form, possibly repeated.
func mistral(sc *scan, i int) result {
	text := sc.text
	pos := skipSpace(text, i+len("[TOOL_CALLS]"))
	if pos >= len(text) {
		if !sc.final {
			return undecided()
		}
		return notCall(i + 1)
	}
	if c := text[pos]; c == '[' || c == '{' {
		return jsonRun(sc, pos, i+1)
	}
	var calls []Call
	end := pos
	for {
		a := strings.Index(text[pos:], "[ARGS]")
		if a < 0 || a > 128 {
			break
		}
		name := strings.TrimSpace(text[pos : pos+a])
		j := skipSpace(text, pos+a+len("[ARGS]"))
		if j >= len(text) && !sc.final {
			return undecided()
		}
		if j >= len(text) || text[j] != '{' {
			break
		}
		e := sc.jsonEnd(j)
		if e < 0 {
			if !sc.final {
				return undecided()
			}
			return notCall(i + 1)
		}
		args, err := provider.ParseArguments(text[j:e])
		if err != nil || !validName(name) {
			return notCall(i + 1)
		}
		calls = append(calls, Call{Name: name, Arguments: args})
		end = e
		if pos = skipSpace(text, e); strings.HasPrefix(text[pos:], "[TOOL_CALLS]") {
			pos = skipSpace(text, pos+len("[TOOL_CALLS]"))
		}
	}
	if calls == nil && !sc.final && len(text)-pos < 128 && !strings.Contains(text[pos:], "\n") {
		return undecided() // the name may still be arriving
	}
	return callsOrNot(calls, end, i+1)
}
