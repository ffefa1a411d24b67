//go:build unix

package tui

import (
	"fmt"
	"strings"
	"testing"
)

// Resizing the terminal after a reply keeps that reply in the terminal's history exactly
// once: narrower and shorter, then back, with the reply short enough to be still in the live
// region and tall enough to have scrolled in part, both. (A resize once dropped the last
// reply from the scrollback.)
func TestTmuxResizeKeepsLastReply(t *testing.T) {
	for _, lines := range []int{8, 45} {
		t.Run(fmt.Sprintf("%d lines", lines), func(t *testing.T) {
			var b strings.Builder
			for i := range lines {
				fmt.Fprintf(&b, "- reply row %02d of the answer\n", i)
			}
			b.WriteString("\nREPLY END")
			script := stressScript(t, 0, 4000, map[string]any{"content": []map[string]any{{"type": "text", "text": b.String()}}})
			m := startTmuxWith(t, script, "", 100, 30)
			m.keys("question", "Enter")
			m.settle("the reply", "", "REPLY END")
			for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {100, 30}} {
				m.resize(size[0], size[1])
				m.settle(fmt.Sprintf("resized to %dx%d", size[0], size[1]), "", "REPLY END")
				history := m.run("capture-pane", "-p", "-J", "-t", m.name, "-S", "-5000")
				for i := range lines {
					row := fmt.Sprintf("reply row %02d of", i)
					if n := strings.Count(history, row); n != 1 {
						t.Fatalf("after resizing to %dx%d, %q is in the history %d times:\n%s", size[0], size[1], row, n, history)
					}
				}
			}
		})
	}
}
