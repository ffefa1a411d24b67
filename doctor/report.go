package doctor

// The findings of one model: what --json prints, and the table.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"pi/eval"
)

// Report is everything pi doctor found about one model. Every finding has a Note that says how
// it was measured or why it could not be; a value that could not be measured stays zero, with
// Known false, rather than being guessed.
type Report struct {
	Model    string `json:"model"` // provider/model
	API      string `json:"api"`   // the wire format pi speaks to it
	BaseURL  string `json:"baseUrl"`
	Window   Window `json:"window"`
	Tools    Tools  `json:"tools"`
	Speed    Speed  `json:"speed"`
	Prefix   Prefix `json:"prefix"`
	Vision   Vision `json:"vision"`
	Eval     Eval   `json:"eval"`
	Suggest  string `json:"suggest"`  // the pi.toml block
	Existing bool   `json:"existing"` // pi.toml already has an entry for this model
}

// Window is the context window: what the server gives, what pi.toml says, what pi plans for.
type Window struct {
	Server     int    `json:"server"`     // what the server gives; 0 when it cannot be asked
	Configured int    `json:"configured"` // pi.toml's context_window; 0 when not set
	Planned    int    `json:"planned"`    // what pi plans compaction and tool output for
	Note       string `json:"note"`
}

// Tool-call verdicts.
const (
	CallsStructured = "structured"    // the server returns tool calls as such
	CallsText       = "text"          // the model writes them as text and pi recovers them
	CallsToolsText  = "tools-as-text" // the server has no tool support: pi sends tools as text
	CallsNone       = "none"          // the reply held no call
	CallsUnknown    = "unknown"       // the probe failed
)

// Tools is how the model answers a request that offers a tool.
type Tools struct {
	Verdict string `json:"verdict"`
	Shape   string `json:"shape"` // the text shape the calls were recovered from; "" unless Verdict is text
	// ToolsAsText says the server reports no tool support, so pi writes the tools into the
	// system prompt and reads the calls back from the text.
	ToolsAsText bool   `json:"toolsAsText"`
	Note        string `json:"note"`
}

// Speed is tokens per second, from the server's own timings; 0 when not measured.
type Speed struct {
	Prefill float64 `json:"prefillTokensPerSecond"`
	Decode  float64 `json:"decodeTokensPerSecond"`
	Note    string  `json:"note"` // how prefill was measured, or why not
	// DecodeNote is how decode was measured.
	DecodeNote string `json:"decodeNote"`
}

// Prefix-reuse verdicts.
const (
	PrefixReused    = "reused"
	PrefixNotReused = "not reused"
	PrefixPartly    = "partly"
	PrefixUnknown   = "unknown"
)

// Prefix is whether the server evaluates only what a turn appended, over three turns.
type Prefix struct {
	Verdict string       `json:"verdict"`
	Turns   []TurnTiming `json:"turns"`
	Note    string       `json:"note"`
}

// TurnTiming is the server's account of one turn's prompt.
type TurnTiming struct {
	PromptTokens int     `json:"promptTokens"`
	OutputTokens int     `json:"outputTokens"`
	Cached       int     `json:"cached"` // where the server says
	PromptMs     float64 `json:"promptMs"`
}

// Vision is whether the model takes pictures.
type Vision struct {
	Known bool   `json:"known"`
	Yes   bool   `json:"yes"`
	Note  string `json:"note"`
}

// Eval is the three-task pi eval run.
type Eval struct {
	Ran    bool            `json:"ran"`
	Passed int             `json:"passed"`
	Runs   []eval.SmokeRun `json:"runs"`
	Note   string          `json:"note"`
}

// printReport writes one model's table and its suggested block.
func printReport(w io.Writer, r *Report) {
	fmt.Fprintf(w, "pi doctor: %s (%s at %s)\n", r.Model, r.API, r.BaseURL)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tRESULT\tHOW")
	row := func(check, result, how string) { fmt.Fprintf(tw, "%s\t%s\t%s\n", check, result, how) }
	row("window", windowCell(r.Window), r.Window.Note)
	row("tool calls", toolsCell(r.Tools), r.Tools.Note)
	row("prefill", rateCell(r.Speed.Prefill), r.Speed.Note)
	row("decode", rateCell(r.Speed.Decode), r.Speed.DecodeNote)
	row("prefix re-use", r.Prefix.Verdict, r.Prefix.Note)
	row("vision", visionCell(r.Vision), r.Vision.Note)
	row("eval (3 tasks)", evalCell(r.Eval), r.Eval.Note)
	tw.Flush()
	fmt.Fprintf(w, "\nSuggested for pi.toml:\n\n%s\n", r.Suggest)
}

func windowCell(w Window) string {
	conf := "not set"
	if w.Configured > 0 {
		conf = fmt.Sprint(w.Configured)
	}
	server := "?"
	if w.Server > 0 {
		server = fmt.Sprint(w.Server)
	}
	return fmt.Sprintf("%s tokens (pi.toml: %s; pi plans %d)", server, conf, w.Planned)
}

func toolsCell(t Tools) string {
	switch {
	case t.ToolsAsText && t.Shape != "":
		return "no tool support: tools as text, calls in " + t.Shape
	case t.ToolsAsText:
		return "no tool support: tools as text"
	case t.Verdict == CallsText:
		return "written as text (" + t.Shape + "), recovered"
	}
	return t.Verdict
}

func rateCell(r float64) string {
	if r <= 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.0f tokens/s", r)
}

func visionCell(v Vision) string {
	switch {
	case !v.Known:
		return "unknown"
	case v.Yes:
		return "yes"
	}
	return "no"
}

func evalCell(e Eval) string {
	if !e.Ran {
		return "not run"
	}
	var failed []string
	for _, r := range e.Runs {
		if !r.Pass {
			failed = append(failed, r.Task)
		}
	}
	cell := fmt.Sprintf("%d/%d passed", e.Passed, len(e.Runs))
	if len(failed) > 0 {
		cell += " (failed: " + strings.Join(failed, ", ") + ")"
	}
	return cell
}
