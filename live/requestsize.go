package live

// requestsize.go says what makes a request too big for the model's window when compacting
// cannot help: a new session has nothing to summarise, and no compaction shrinks the system
// prompt, the tool definitions, the context files, the prompt or a file attached to it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"pi/internal/atfile"
	"pi/provider"
	"pi/session"
)

// ErrRequestTooBig is what a run ends with when what every request carries does not fit the
// model's window, or the conversation holds nothing a compaction could summarise.
var ErrRequestTooBig = errors.New("the request does not fit the model's context window")

// sizedPart is one named part of a request and its estimated tokens.
type sizedPart struct {
	name   string
	tokens int
}

// requestSize is the estimated tokens (characters/4, as compaction counts) of what a request
// carries.
type requestSize struct {
	window       int
	system       int // pi's system prompt, the context files left out
	tools        int // the tool definitions
	toolCount    int
	contextFiles []sizedPart
	prompt       int         // the newest user message, its attached files left out
	attached     []sizedPart // the files attached to it (@file)
	rest         int         // the other messages: what a compaction can summarise
}

// fixed is what no compaction makes smaller.
func (r requestSize) fixed() int {
	n := r.system + r.tools + r.prompt
	for _, p := range append(r.contextFiles, r.attached...) {
		n += p.tokens
	}
	return n
}

// compactionCannotHelp reports whether a compaction would be useless: nothing to summarise,
// or the part it cannot touch does not fit on its own.
func (r requestSize) compactionCannotHelp() bool {
	return r.rest == 0 || r.window > 0 && r.fixed() >= r.window
}

// measureRequest estimates the parts of the next request.
func (c *compactor) measureRequest() requestSize {
	st := c.agent.State()
	r := requestSize{window: st.Model.ContextWindow, system: tokensOf(st.SystemPrompt), toolCount: len(st.Tools)}
	for _, f := range c.scripts.parts.ContextFiles {
		p := sizedPart{name: f.Path, tokens: tokensOf(f.Content)}
		r.contextFiles = append(r.contextFiles, p)
		r.system = max(0, r.system-p.tokens)
	}
	for _, t := range st.Tools {
		def, _ := json.Marshal(t.Info().Def())
		r.tools += tokensOf(string(def))
	}
	newest := -1
	for i := range st.Messages {
		if st.Messages[i].Role == provider.RoleUser {
			newest = i
		}
	}
	for i := range st.Messages {
		m := &st.Messages[i]
		switch {
		case i == newest:
			r.prompt, r.attached = promptAndFiles(m)
		case !m.Failed():
			r.rest += session.EstimateTokens(m)
		}
	}
	return r
}

// promptAndFiles splits a user message's tokens into its files attached inline (@file) and
// the rest.
func promptAndFiles(m *provider.Message) (prompt int, files []sizedPart) {
	total := session.EstimateTokens(m)
	for _, b := range m.Content {
		if b.Type != provider.BlockText {
			continue
		}
		for _, piece := range atfile.Split(b.Text) {
			if piece.File != nil && !piece.File.Note {
				p := sizedPart{name: piece.File.Path, tokens: tokensOf(piece.Text)}
				files = append(files, p)
				total -= p.tokens
			}
		}
	}
	return max(0, total), files
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func tokensOf(s string) int { return (len(s) + 3) / 4 }

// tooBig is the error of a request that compacting cannot make fit.
func (r requestSize) tooBig(cwd string) error {
	window := ""
	if r.window > 0 {
		window = fmt.Sprintf(" of %d tokens", r.window)
	}
	return fmt.Errorf("%w%s, and compacting cannot make it smaller: %s", ErrRequestTooBig, window, r.advice(cwd))
}

// advice says what the request holds and what the user can do about the parts that weigh.
func (r requestSize) advice(cwd string) string {
	var parts []string
	add := func(what string, tokens int) {
		if tokens > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", what, tokens))
		}
	}
	add("system prompt", r.system)
	add(fmt.Sprintf("%d tool definition%s", r.toolCount, plural(r.toolCount)), r.tools)
	for _, f := range r.contextFiles {
		add("context file "+shortPath(f.name, cwd), f.tokens)
	}
	add("prompt", r.prompt)
	for _, f := range r.attached {
		add("attached file "+shortPath(f.name, cwd), f.tokens)
	}
	add("the rest of the conversation", r.rest)
	todo := []string{"give the model a bigger window (its context_window in pi.toml; for Ollama also the provider's default_num_ctx: the num_ctx pi sends)"}
	if r.tools > 0 {
		todo = append(todo, "load fewer tools (--tools read,bash, or --no-tools)")
	}
	if len(r.contextFiles) > 0 {
		todo = append(todo, "leave the context files out (--no-context-files)")
	}
	if len(r.attached) > 0 {
		todo = append(todo, "attach less (the model can read a file in parts with the read tool)")
	}
	if r.rest > 0 {
		todo = append(todo, "start a new session")
	}
	return fmt.Sprintf("estimated tokens: %s. To fit, %s", strings.Join(parts, ", "), strings.Join(todo, "; "))
}

// shortPath names a file relative to cwd when it lies below it.
func shortPath(path, cwd string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
