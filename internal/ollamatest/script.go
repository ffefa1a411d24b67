package ollamatest

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// Replies of ReadRoundTrip, exported so tests can assert on them.
const (
	// ReadPath is the path the scripted read call asks for.
	ReadPath = "README.md"
	// FinalAnswer is the reply after a tool result.
	FinalAnswer = "The file says hello."
	// NoMatchReply is the default Fallback: a visible reply when no rule matched, so a test that
	// sends an unexpected conversation fails on the text instead of an empty answer.
	NoMatchReply = "No scripted reply matches this conversation."
)

// ModelSpec describes a scripted model. The zero ContextLength means 32768.
type ModelSpec struct {
	// Rules are tried in order against each prompt; the first whose When matches picks the
	// reply.
	Rules []Rule
	// Fallback is the reply when no rule matches; "" means NoMatchReply.
	Fallback string
	// ContextLength is written as llama.context_length, the model's maximum context.
	ContextLength int
	// TextToolCalls leaves the tool-call block out of the template (it still mentions .Tools, so
	// Ollama accepts tools): the server then returns a call the model writes as plain text, as
	// it does for real models whose template does not parse calls.
	TextToolCalls bool
	// NoTools leaves .Tools out of the template as well: Ollama then reports no tools
	// capability and refuses a request that offers tools. Rules cannot use ToolOffered.
	NoTools bool
}

// Rule is one scripted reply and the conversations it answers. The model says the reply as
// word-sized tokens (pieces start at whitespace; pieces that two replies would continue
// differently are merged with a neighbour), then <|im_end|>.
type Rule struct {
	When  When
	Reply string // the model's whole output; ToolCall builds a tool call
}

// When is a condition on the conversation, checked by the chat template inside Ollama. Every
// set field must hold; the zero When matches every conversation. Role names are Ollama's: user,
// assistant, tool, system. Messages are counted as Ollama hands them to the template, after it
// has merged consecutive messages of one role (tool messages excepted).
type When struct {
	LastRole    string // the newest message has this role
	LastPrefix  string // the newest message's content starts with this
	ToolOffered string // the request offers a tool of this name
	ToolResults int    // when > 0: the conversation holds exactly this many tool messages
	UserTurns   int    // when > 0: the conversation holds exactly this many user messages
}

// ReadRoundTrip is the spec most end-to-end tests use: a user message with a read tool offered
// gets a read call for ReadPath; a tool result gets FinalAnswer.
func ReadRoundTrip() ModelSpec {
	return ModelSpec{Rules: []Rule{
		{When: When{LastRole: "tool"}, Reply: FinalAnswer},
		{When: When{LastRole: "user", ToolOffered: "read"}, Reply: ToolCall("read", map[string]any{"path": ReadPath})},
	}}
}

// ToolCall returns the reply text of one tool call in the form the template declares, which
// Ollama parses into a structured tool call. The arguments are rendered exactly as Ollama's
// template renders them in later turns (compact JSON, sorted keys), so a conversation re-renders
// the same text the model produced. It panics if args cannot be encoded as JSON, a programming
// error in the calling test.
func ToolCall(name string, args map[string]any) string {
	a, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("ollamatest.ToolCall %s: %v", name, err))
	}
	n, _ := json.Marshal(name)
	return "<tool_call>\n{\"name\": " + string(n) + ", \"arguments\": " + string(a) + "}\n</tool_call>"
}

// splitPieces cuts a reply into word-sized pieces, each starting at a whitespace run that
// follows other text, so a reply streams as several chunks.
func splitPieces(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if i > start && unicode.IsSpace(r) && !unicode.IsSpace(lastRune(s[start:i])) {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func lastRune(s string) rune {
	r := []rune(s)
	return r[len(r)-1]
}

// resolvePieces makes the pieces of all replies a valid bigram table: a token has one
// successor, so a piece that two places continue differently, or a one-byte piece (which would
// be a byte token every prompt uses), is merged with its neighbour until no conflict is left.
// Each round removes at least one piece, so it ends.
func resolvePieces(replies [][]string) ([][]string, error) {
	for {
		bad, err := conflictingPiece(replies)
		if err != nil || bad == "" {
			return replies, err
		}
		for i, r := range replies {
			replies[i] = mergePiece(r, bad)
		}
	}
}

func conflictingPiece(replies [][]string) (string, error) {
	next := map[string]string{}
	for _, r := range replies {
		for i, p := range r {
			after := "\x00end"
			if i+1 < len(r) {
				after = r[i+1]
			}
			if prev, seen := next[p]; len(p) == 1 || (seen && prev != after) {
				if len(r) == 1 && len(p) == 1 {
					return "", fmt.Errorf("reply %q is one byte; the model cannot say it as its own token", p)
				}
				return p, nil
			}
			next[p] = after
		}
	}
	return "", nil
}

// mergePiece joins every occurrence of bad with the piece after it, or before it when it is
// last.
func mergePiece(r []string, bad string) []string {
	for i := 0; i < len(r); i++ {
		if r[i] != bad || len(r) == 1 {
			continue
		}
		if i+1 < len(r) {
			r[i] += r[i+1]
			r = append(r[:i+1], r[i+2:]...)
		} else {
			r[i-1] += r[i]
			r = r[:i]
		}
	}
	return r
}

// checkReply rejects text the prompt tokenizer would split as a control token, which would
// make a re-rendered conversation differ from what the model said.
func checkReply(reply string, control []string) error {
	for _, c := range control {
		if strings.Contains(reply, c) {
			return fmt.Errorf("reply %q contains control token %s", reply, c)
		}
	}
	return nil
}

// ToolLoop is a spec for multi-turn tool conversations, such as the prompt-cache test: a user
// message offering tool gets a call with calls[0], the k-th tool result gets calls[k], and the
// tool result after the last call gets final. With no calls the user message gets final.
func ToolLoop(tool string, calls []map[string]any, final string) ModelSpec {
	if len(calls) == 0 {
		return ModelSpec{Rules: []Rule{{When: When{LastRole: "user"}, Reply: final}}}
	}
	var rules []Rule
	for k := len(calls) - 1; k >= 1; k-- {
		rules = append(rules, Rule{When: When{LastRole: "tool", ToolResults: k}, Reply: ToolCall(tool, calls[k])})
	}
	rules = append(rules,
		Rule{When: When{LastRole: "tool", ToolResults: len(calls)}, Reply: final},
		Rule{When: When{LastRole: "user", ToolOffered: tool}, Reply: ToolCall(tool, calls[0])})
	return ModelSpec{Rules: rules}
}
