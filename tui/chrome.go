package tui

import (
	"fmt"
	"os"
	"strings"
	"time"

	"pi/internal/atfile"
	"pi/tui/theme"
)

// FooterInfo is what the footer shows; the controller sets it after every reply.
type FooterInfo struct {
	Cwd      string
	Session  string // session name, if any
	Model    string
	Thinking string // thinking level, "" or "off" hides it

	Input, Output         int // tokens, cumulative for the session
	CacheRead, CacheWrite int
	Cost                  float64 // US dollars
	ContextTokens         int     // tokens in the current context
	ContextWindow         int     // the model's window, 0 when unknown
	// Reprocess is the prompt tokens the next request makes the server evaluate (what it has
	// not cached), ReprocessSeconds about how long that takes (0: no measured speed yet).
	Reprocess        int
	ReprocessSeconds float64
}

func renderFooter(th *theme.Theme, f FooterInfo, width int) []string {
	cwd := f.Cwd
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(cwd, home) {
		cwd = "~" + strings.TrimPrefix(cwd, home)
	}
	if f.Session != "" {
		cwd += " • " + f.Session
	}
	var stats []string
	if f.Input > 0 || f.Output > 0 {
		stats = append(stats, "↑"+tokens(f.Input), "↓"+tokens(f.Output))
	}
	if f.CacheRead > 0 {
		stats = append(stats, "R"+tokens(f.CacheRead))
	}
	if f.CacheWrite > 0 {
		stats = append(stats, "W"+tokens(f.CacheWrite))
	}
	if f.Cost > 0 {
		stats = append(stats, fmt.Sprintf("$%.3f", f.Cost))
	}
	if f.ContextWindow > 0 {
		pct := 100 * float64(f.ContextTokens) / float64(f.ContextWindow)
		stats = append(stats, fmt.Sprintf("%.1f%%/%s", pct, tokens(f.ContextWindow)))
	}
	if f.Reprocess > 0 {
		stats = append(stats, "next "+tokens(f.Reprocess)+seconds(f.ReprocessSeconds))
	}
	left := strings.Join(stats, " ")
	right := f.Model
	if f.Thinking != "" && f.Thinking != "off" {
		right += " • " + f.Thinking
	}
	// The footer's second line is the screen's last, whose last column stays free (see
	// Renderer.fitLast): it is laid out one column narrower, so that nothing is cut.
	width2 := width - 1
	line2 := left
	if gap := width2 - Width(left) - Width(right); gap >= 2 {
		line2 = left + strings.Repeat(" ", gap) + right
	} else if right != "" {
		line2 = strings.TrimSpace(left + "  " + right)
	}
	return []string{
		paint(th.Muted, Truncate(cwd, width, "…")),
		paint(th.Muted, Truncate(line2, width2, "…")),
	}
}

// seconds is " ~12s" for a measured time, "" for none.
func seconds(s float64) string {
	switch {
	case s <= 0:
		return ""
	case s < 1:
		return " <1s"
	case s < 100:
		return fmt.Sprintf(" ~%.0fs", s)
	}
	return fmt.Sprintf(" ~%.0fm", s/60)
}

// tokens formats a token count compactly: 950, 12.3k, 1.2M.
func tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
}

var spinner = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// renderStatus is the working indicator, or a transient status message when idle.
func renderStatus(th *theme.Theme, working bool, since, now time.Time, msg string, width int) []string {
	if !working {
		if msg == "" {
			return nil
		}
		return []string{paint(th.Muted, Truncate(msg, width, "…"))}
	}
	el := now.Sub(since)
	frame := spinner[int(el/(100*time.Millisecond))%len(spinner)]
	if msg == "" {
		msg = "Working…"
	}
	line := paint(th.Accent, frame+" ") + msg + paint(th.Muted, fmt.Sprintf(" (%ds · esc to interrupt)", int(el.Seconds())))
	return []string{Truncate(line, width, "…")}
}

// renderQueue shows the messages waiting for delivery, an attached file by its name and size.
func renderQueue(th *theme.Theme, steer, follow []string, width int) []string {
	var out []string
	for _, s := range steer {
		out = append(out, paint(th.Muted, Truncate("↳ steer: "+oneLine(atfile.Fold(s)), width, "…")))
	}
	for _, s := range follow {
		out = append(out, paint(th.Muted, Truncate("⏎ follow-up: "+oneLine(atfile.Fold(s)), width, "…")))
	}
	return out
}

func oneLine(s string) string { return strings.ReplaceAll(sanitize(s), "\n", " ⏎ ") }
