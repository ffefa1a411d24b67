package tui

import (
	"strings"
	"testing"
)

// The footer's last line ends with the model's whole name: it is laid out for the last
// row, whose last column stays free, instead of being cut there.
func TestFooterKeepsLastCharacter(t *testing.T) {
	for _, w := range []int{40, 80, 120} {
		app, term, _ := newTestApp(t, w, 10, Callbacks{})
		app.SetFooter(FooterInfo{Cwd: "/p", Model: "ollama/pi-scripted:latest", ContextWindow: 8192})
		app.Flush()
		rows := term.all()
		last := strings.TrimRight(rows[len(rows)-1], " ")
		if !strings.HasSuffix(last, "ollama/pi-scripted:latest") {
			t.Errorf("width %d: the footer's last row is %q", w, last)
		}
	}
}

// The footer says what the next request makes the server evaluate, and about how long that
// takes once a speed was measured.
func TestFooterNextRequest(t *testing.T) {
	cases := []struct {
		name string
		info FooterInfo
		want string // on the footer's last row; "" for no next figure
	}{
		{"nothing to evaluate", FooterInfo{ContextWindow: 8192}, ""},
		{"no speed yet", FooterInfo{ContextWindow: 8192, Reprocess: 1234}, "next 1.2k "},
		{"seconds", FooterInfo{ContextWindow: 8192, Reprocess: 1234, ReprocessSeconds: 9.4}, "next 1.2k ~9s"},
		{"under a second", FooterInfo{Reprocess: 80, ReprocessSeconds: 0.2}, "next 80 <1s"},
		{"minutes", FooterInfo{Reprocess: 90000, ReprocessSeconds: 600}, "next 90k ~10m"},
	}
	for _, c := range cases {
		c.info.Cwd, c.info.Model = "/p", "m"
		app, term, _ := newTestApp(t, 80, 10, Callbacks{})
		app.SetFooter(c.info)
		app.Flush()
		rows := term.all()
		last := rows[len(rows)-1]
		if c.want == "" && strings.Contains(last, "next") || c.want != "" && !strings.Contains(last+" ", c.want) {
			t.Errorf("%s: the footer's last row is %q, want %q", c.name, last, c.want)
		}
	}
}
