package tui

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
)

// TestTogglesUnfoldTheBoxThatScrolledUp: Ctrl+O and Ctrl+T act on the box their hint sits
// under even once it has gone to the scrollback, which is never redrawn: it is printed again
// below, unfolded, once; a box still on the live screen just redraws.
func TestTogglesUnfoldTheBoxThatScrolledUp(t *testing.T) {
	var out strings.Builder
	for i := 1; i <= 25; i++ {
		out.WriteString("output line " + strconv.Itoa(i) + "\n")
	}
	cases := []struct {
		name   string
		show   func(app *App)
		key    tcell.Key
		hidden string // what only the unfolded box shows
	}{
		{"ctrl+o on a tool box", func(app *App) {
			app.ToolStart("c1", "read", map[string]any{"path": "big.txt"})
			app.ToolEnd("c1", []provider.Block{provider.Text(out.String())}, nil, false)
		}, tcell.KeyCtrlO, "output line 25"},
		{"ctrl+t on a reply's thinking", func(app *App) {
			app.EndAssistant(&provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
				provider.Thinking("THE-HIDDEN-REASONING"), provider.Text("the answer")}})
		}, tcell.KeyCtrlT, "THE-HIDDEN-REASONING"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, term, _ := newTestApp(t, 80, 12, Callbacks{})
			c.show(app)
			app.Flush()
			for i := 0; i < 3; i++ {
				app.Notify(LevelInfo, "later notice "+strconv.Itoa(i))
			}
			app.Flush()
			if strings.Contains(strings.Join(term.all(), "\n"), c.hidden) {
				t.Fatalf("%q shown before the key", c.hidden)
			}
			app.HandleEvent(key(c.key, 0, 0))
			app.Flush()
			app.HandleEvent(key(c.key, 0, 0)) // folding again prints nothing
			app.Flush()
			app.HandleEvent(key(c.key, 0, 0)) // nor does unfolding what was already printed
			app.Flush()
			screen := strings.Join(term.all(), "\n")
			if n := strings.Count(screen, c.hidden); n != 1 {
				t.Fatalf("%q shown %d times, want once:\n%s", c.hidden, n, screen)
			}
			if strings.Index(screen, c.hidden) < strings.Index(screen, "later notice 2") {
				t.Fatalf("the unfolded box is not below what came after it:\n%s", screen)
			}
		})
	}
}
