//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/tui/theme"
)

// The real binary draws in the theme file pi.toml names, and /settings switches to another
// theme: what is drawn after holds its colours, and pi.toml keeps the choice.
func TestTmuxThemeFromSettings(t *testing.T) {
	themes := t.TempDir()
	file := filepath.Join(themes, "mine.toml")
	var b strings.Builder
	b.WriteString("# my colours\nextends = \"light\"\naccent = \"#0a0b0c\"\nmuted = \"#0d0e0f\"\n")
	for _, role := range []string{"border", "thinking_minimal", "thinking_low", "thinking_medium", "thinking_high", "thinking_xhigh"} {
		b.WriteString(role + " = \"#010203\"\n")
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `{"replies": [{"content": [{"type": "text", "text": "# Heading\n\nTHEMED-REPLY"}]}]}`
	m := startTmuxWith(t, script, "# my settings\n[ui]\ntheme = \""+file+"\" # mine\n", 100, 30)
	output := func() string { data, _ := os.ReadFile(filepath.Join(m.dir, "output")); return string(data) }
	waitOutput := func(from int, want string) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !strings.Contains(output()[from:], want); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("the output never held %q after byte %d; pane:\n%s", want, from, m.screen())
			}
		}
	}
	waitOutput(0, "\x1b[38;2;1;2;3m")    // the editor's border
	waitOutput(0, "\x1b[38;2;13;14;15m") // the footer
	m.keys("hello", "Enter")
	m.mustSee("THEMED-REPLY")
	if dark := theme.Dark(); strings.Contains(output(), dark.Border) || strings.Contains(output(), dark.Accent) {
		t.Error("the dark theme's colours were drawn although pi.toml names another theme")
	}

	from := len(output())
	m.keys("/settings", "Enter")
	m.mustSee("Settings (saved to")
	m.keys("theme")
	m.mustSee("filter: theme") // "1/" alone is there before the filter is typed
	m.keys("Enter")
	m.mustSee("light") // a row of the theme picker: the settings list shows only the current value
	m.keys("dark", "Enter")
	m.mustSee("theme: dark (saved to")
	waitOutput(from, theme.Dark().Border)
	after := output()[from:]
	if strings.Contains(after[strings.LastIndex(after, "theme: dark"):], "\x1b[38;2;1;2;3m") {
		t.Error("the old theme's border was drawn after the switch")
	}
	saved, _ := os.ReadFile(filepath.Join(m.dir, "pi.toml"))
	if !strings.Contains(string(saved), "[ui]\ntheme = \"dark\" # mine") || !strings.Contains(string(saved), "# my settings") {
		t.Errorf("pi.toml after the switch:\n%s", saved)
	}
}
