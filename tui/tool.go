package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"pi/provider"
	"pi/tui/theme"
)

// maxToolLine caps the bytes of one output line kept for display.
const maxToolLine = 4096

type toolState int

const (
	toolRunning toolState = iota
	toolDone
	toolFailed
)

// toolView is a tool call as a compact box: a header with the call, coloured by state, and a
// collapsed preview of the output that Ctrl+O expands.
type toolView struct {
	th       *theme.Theme
	id, name string
	label    string // the tool's label (pi's label), shown instead of its name when set
	args     map[string]any
	state    toolState
	output   []string // sanitized output lines
	diff     string   // edit: the diff from the result details
	// a script tool's own text for the call and for its output (render_call, render_result);
	// ctrl+o still shows the whole output
	renderCall, renderResult string
	selfShell                bool // the tool draws its whole box: its texts without pi's frame
	started                  time.Time
	ended                    time.Time
	expanded                 *bool // shared with the App
	now                      func() time.Time
}

func (t *toolView) final() bool { return t.state != toolRunning }

func (t *toolView) setTheme(th *theme.Theme) { t.th = th }

func (t *toolView) setOutput(content []provider.Block) {
	var b strings.Builder
	for _, c := range content {
		switch c.Type {
		case provider.BlockText:
			b.WriteString(c.Text)
		case provider.BlockImage:
			b.WriteString(imagePlaceholder(c) + "\n")
		}
	}
	text := strings.TrimRight(sanitize(b.String()), "\n")
	t.output = nil
	if text != "" {
		t.output = strings.Split(text, "\n")
	}
	for i, l := range t.output {
		if len(l) > maxToolLine {
			// A box shows one row per line; measuring a megabyte of minified JSON on every
			// frame to show its first hundred columns would be waste.
			t.output[i] = strings.ToValidUTF8(l[:maxToolLine], "")
		}
	}
}

// setDetails picks what the box shows from a result's details: the diff of an edit.
func (t *toolView) setDetails(details any) {
	if details == nil {
		return
	}
	data, err := json.Marshal(details)
	if err != nil {
		return
	}
	var d struct {
		Diff         string `json:"diff"`
		RenderCall   string `json:"pi_render_call"`
		RenderResult string `json:"pi_render_result"`
		RenderShell  string `json:"pi_render_shell"`
	}
	if json.Unmarshal(data, &d) == nil {
		t.diff = sanitize(d.Diff)
		t.renderCall, t.renderResult = oneLine(d.RenderCall), strings.TrimRight(sanitize(d.RenderResult), "\n")
		t.selfShell = d.RenderShell == "self" && (t.renderCall != "" || t.renderResult != "")
	}
}

func (t *toolView) style() (icon, style string) {
	switch t.state {
	case toolDone:
		return "✓ ", t.th.Success
	case toolFailed:
		return "✗ ", t.th.Error
	}
	return "● ", t.th.Warning
}

func (t *toolView) Render(width int) []string {
	if t.selfShell && !*t.expanded && t.final() { // ctrl+o still shows pi's box, with the whole output
		return t.renderSelf(width)
	}
	icon, style := t.style()
	head := paint(style, icon) + paint(sBold, sanitize(cmp.Or(t.label, t.name))) + " " + paint(t.th.Muted, t.summary())
	if t.name == "bash" || t.state == toolRunning {
		head += paint(t.th.Muted, " ("+t.elapsed()+")")
	}
	lines := []string{Truncate(head, width, "…")}
	body, hidden := t.preview()
	bar := paint(style, "│ ")
	for _, l := range body {
		lines = append(lines, bar+Truncate(l, max(width-2, 1), "…"))
	}
	if hidden > 0 {
		lines = append(lines, paint(t.th.Muted, Truncate("╰ … "+moreLines(hidden)+" (ctrl+o to expand)", width, "…")))
	}
	return lines
}

// renderSelf is a render_shell = "self" tool's box: its own call line and result lines, as
// they are (sanitised and cut to the width).
func (t *toolView) renderSelf(width int) []string {
	var lines []string
	if t.renderCall != "" {
		lines = append(lines, Truncate(t.renderCall, width, "…"))
	}
	if t.renderResult != "" {
		for _, l := range strings.Split(t.renderResult, "\n") {
			lines = append(lines, Truncate(l, width, "…"))
		}
	}
	return lines
}

func (t *toolView) elapsed() string {
	end := t.ended
	if end.IsZero() {
		end = t.now()
	}
	return end.Sub(t.started).Round(100 * time.Millisecond).String()
}

// preview returns the body lines to show and how many were left out. Bash shows the last
// lines (the end of a build is what matters), everything else the first ones.
func (t *toolView) preview() ([]string, int) {
	lines := t.output
	if t.renderResult != "" && !*t.expanded {
		lines = strings.Split(t.renderResult, "\n")
	} else if t.diff != "" && t.state == toolDone {
		lines = colourDiff(t.th, t.diff)
	} else if t.name == "write" && t.state != toolFailed && len(lines) <= 1 {
		// A write's result is one line ("Wrote …"): its content is what the user wants to see,
		// unless it failed, when the error is.
		if c, ok := t.args["content"].(string); ok {
			lines = strings.Split(sanitize(strings.TrimRight(c, "\n")), "\n")
		}
	}
	limit := map[string]int{"bash": 5, "read": 10, "grep": 15, "find": 20, "ls": 20, "edit": 30}[t.name]
	if limit == 0 {
		limit = 10
	}
	if *t.expanded {
		limit = 1000
	}
	if len(lines) <= limit {
		return lines, 0
	}
	if t.name == "bash" {
		return lines[len(lines)-limit:], len(lines) - limit
	}
	return lines[:limit], len(lines) - limit
}

// moreLines counts the lines a box or widget leaves out: "1 more line", "2 more lines".
func moreLines(n int) string {
	if n == 1 {
		return "1 more line"
	}
	return fmt.Sprintf("%d more lines", n)
}

func colourDiff(th *theme.Theme, diff string) []string {
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+"):
			lines[i] = paint(th.Success, l)
		case strings.HasPrefix(l, "-"):
			lines[i] = paint(th.Error, l)
		default:
			lines[i] = paint(th.Muted, l)
		}
	}
	return lines
}

// summary is the one-line form of the call's arguments.
func (t *toolView) summary() string {
	str := func(k string) string { s, _ := t.args[k].(string); return sanitize(s) }
	if t.renderCall != "" {
		return t.renderCall
	}
	switch t.name {
	case "bash":
		return strings.ReplaceAll(str("command"), "\n", " ⏎ ")
	case "read", "write", "edit", "ls":
		s := str("path")
		if off, ok := t.args["offset"].(float64); ok {
			s += fmt.Sprintf(":%d", int(off))
		}
		return s
	case "grep", "find":
		return strings.TrimSpace(str("pattern") + " " + str("path"))
	}
	keys := make([]string, 0, len(t.args))
	for k := range t.args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		v, _ := json.Marshal(t.args[k])
		parts = append(parts, k+"="+sanitize(string(v)))
	}
	return strings.Join(parts, " ")
}
