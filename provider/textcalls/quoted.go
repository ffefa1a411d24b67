package textcalls

import (
	"encoding/json"
	"strings"

	"pi/provider"
)

// quoted is what the user's messages hold in code blocks: the blocks' text and the calls
// written in them.
type quoted struct {
	blocks []string
	calls  map[string]bool
}

// quotedCalls collects the fenced code blocks of the user messages and the calls inside them,
// whatever tools they name.
func quotedCalls(msgs []provider.Message) quoted {
	q := quoted{calls: map[string]bool{}}
	any := func(string) bool { return true }
	for i := range msgs {
		if msgs[i].Role != provider.RoleUser {
			continue
		}
		for _, blk := range codeBlocks(msgs[i].TextContent()) {
			q.blocks = append(q.blocks, blk)
			for _, m := range Find(blk, 0, any) {
				for _, c := range m.Calls {
					q.calls[callKey(c)] = true
				}
			}
		}
	}
	return q
}

// contains reports whether raw markup, or any of its calls, appears in a quoted code block.
func (q quoted) contains(raw string, calls []Call) bool {
	raw = strings.TrimSpace(raw)
	for _, b := range q.blocks {
		if strings.Contains(b, raw) {
			return true
		}
	}
	for _, c := range calls {
		if q.calls[callKey(c)] {
			return true
		}
	}
	return false
}

func callKey(c Call) string {
	args, _ := json.Marshal(c.Arguments) // decoded JSON always encodes; keys sort
	return c.Name + "\x00" + string(args)
}

// codeBlocks returns the bodies of the fenced code blocks (``` or ~~~) in markdown text; a
// block left open runs to the end.
func codeBlocks(text string) []string {
	var out []string
	var body strings.Builder
	open := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case open == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			open = t[:3]
			body.Reset()
		case open != "" && strings.HasPrefix(t, open) && strings.Trim(t, open[:1]) == "":
			out = append(out, body.String())
			open = ""
		case open != "":
			body.WriteString(line)
		}
	}
	if open != "" {
		out = append(out, body.String())
	}
	return out
}
