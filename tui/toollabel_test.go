package tui

import (
	"strings"
	"testing"
)

// A tool with a label shows it in its call row instead of its name; one without, its name.
func TestToolLabelInCallRow(t *testing.T) {
	term := newVT(60, 12)
	labels := map[string]string{"todo": "Todo list"}
	app := NewApp(term, 60, 12, Callbacks{}, Options{ManualFrames: true, Cwd: t.TempDir(),
		ToolLabel: func(name string) string { return labels[name] }})
	app.ToolStart("1", "todo", map[string]any{"op": "add"})
	app.ToolStart("2", "grep", map[string]any{"pattern": "x"})
	app.Flush()
	screen := strings.Join(screenRows(term), "\n")
	if !strings.Contains(screen, "Todo list") || strings.Contains(screen, "● todo") || !strings.Contains(screen, "grep") {
		t.Fatalf("call rows:\n%s", screen)
	}
}
