package doctor

// The suggested pi.toml block, and --write, which adds it to $PI_HOME/pi.toml.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"pi/config"
	"pi/internal/atomicfile"
	"pi/internal/safefile"
)

// Windows at which the suggestion trims: below smallWindow the default tools' schemas take a
// real share of the window; below subagentWindow a child's own prompt does not fit beside the
// parent's.
const (
	smallWindow    = 8192
	subagentWindow = 32768
)

// suggest builds the block for the model, and says whether pi.toml already has an entry for it.
// Settings that apply to every model (tools, [subagents]) are comments: the block must not
// change other models.
func suggest(cfg *config.Config, r *Report, prov, id string) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "# pi doctor, %s: %s\n", time.Now().Format("2006-01-02"), r.Model)
	fmt.Fprintf(&b, "[[providers.%s.models]]\n", tomlKey(prov))
	fmt.Fprintf(&b, "id = %s\n", tomlString(id))
	window := r.Window.Server
	switch {
	case window > 0:
		fmt.Fprintf(&b, "context_window = %d  # the window the server gives\n", window)
	case r.Window.Planned > 0:
		window = r.Window.Planned
		fmt.Fprintf(&b, "context_window = %d  # what pi plans for; the server does not say\n", window)
	}
	if line := textCallsLine(r.Tools); line != "" {
		b.WriteString(line + "\n")
	}
	b.WriteString("argument_repair = true  # constrained retry: a call whose arguments fail is asked for once more, held to the tool's schema\n")
	for _, c := range globalAdvice(window, r) {
		b.WriteString("# " + c + "\n")
	}
	return b.String(), hasEntry(cfg, prov, id)
}

func textCallsLine(t Tools) string {
	switch {
	case t.ToolsAsText:
		return "text_tool_calls = true  # no tool support: pi writes the tools into the prompt and reads the calls back from the text"
	case t.Verdict == CallsText:
		return "text_tool_calls = true  # the model writes its calls as text (" + t.Shape + "); pi recovers them"
	case t.Verdict == CallsStructured:
		return "text_tool_calls = true  # calls come back structured; recovery stays on for one written as text"
	}
	return "# text_tool_calls: no call came back, so no verdict (it is on by default)"
}

// globalAdvice is what the measurements suggest for settings every model shares.
func globalAdvice(window int, r *Report) []string {
	var out []string
	if window > 0 && window <= smallWindow {
		out = append(out, fmt.Sprintf(`for every model, so not set here: tools = ["read", "bash", "edit"]  # a %d-token window has little room for more tools' schemas`, window))
	}
	switch {
	case window > 0 && window < subagentWindow:
		out = append(out, fmt.Sprintf("[subagents] enabled = false (the default): a child's prompt does not fit beside this one in %d tokens", window))
	case window >= subagentWindow && r.Eval.Ran && r.Eval.Passed*3 >= len(r.Eval.Runs)*2:
		out = append(out, "[subagents] enabled = true would fit: the window holds a child's prompt, and the model passed the eval run")
	}
	return out
}

func hasEntry(cfg *config.Config, prov, id string) bool {
	pc := cfg.Providers[prov]
	return pc != nil && slices.ContainsFunc(pc.Models, func(m config.ModelConfig) bool { return m.ID == id })
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b bytes.Buffer
	toml.NewEncoder(&b).Encode(map[string]string{"v": s})
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
}

// tomlKey is a bare key when it may be one, else quoted.
func tomlKey(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return tomlString(s)
		}
	}
	return s
}

// writeBlocks adds each report's block to the pi.toml at path, saying so on shown (with the
// block, when show is set: the table already showed it otherwise); a model the file already
// describes is left alone (its entry is the user's to edit). The file is replaced only once the
// result parses.
func writeBlocks(path string, reports []*Report, show bool, shown, stderr io.Writer) int {
	old, err := safefile.ReadFile(context.Background(), path, safefile.MaxTextFile)
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintf(stderr, "pi doctor: reading %s: %v\n", path, err)
		return 1
	}
	text, code := string(old), 0
	var added []string
	for _, r := range reports {
		if fileDescribes(text, r.Model) {
			fmt.Fprintf(stderr, "pi doctor: %s already describes %s; not written: edit its entry by hand\n", path, r.Model)
			code = 1
			continue
		}
		if show {
			fmt.Fprintf(shown, "Adding to %s:\n\n%s\n", path, r.Suggest)
		}
		added = append(added, r.Model)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		text += r.Suggest
	}
	if text == string(old) {
		return code
	}
	var check map[string]any
	if _, err := toml.Decode(text, &check); err != nil {
		fmt.Fprintf(stderr, "pi doctor: adding the block to %s would break the file: %v; not written\n", path, err)
		return 1
	}
	if err := atomicfile.Replace(path, []byte(text)); err != nil {
		fmt.Fprintf(stderr, "pi doctor: writing %s: %v\n", path, err)
		return 1
	}
	if !show {
		fmt.Fprintf(shown, "Added the block for %s above to %s.\n", strings.Join(added, ", "), path)
	}
	return code
}

// fileDescribes reports whether the pi.toml text has a model entry for model (provider/id).
func fileDescribes(text, model string) bool {
	prov, id, _ := strings.Cut(model, "/")
	var f struct {
		Providers map[string]struct {
			Models []struct{ ID string } `toml:"models"`
		} `toml:"providers"`
	}
	if _, err := toml.Decode(text, &f); err != nil {
		return false // the write below refuses a file that does not parse
	}
	return slices.ContainsFunc(f.Providers[prov].Models, func(m struct{ ID string }) bool { return m.ID == id })
}

// isLocal reports whether a server's base URL is on this machine (or unset: Ollama's default).
func isLocal(base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}
