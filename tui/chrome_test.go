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
