package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/agent"
	"pi/internal/pitest"
	"pi/tui"
)

// TestSettingsCommandAppliesAndSaves picks the steering mode in /settings: it changes at once
// and lands in $PI_HOME/pi.toml beside what the file held.
func TestSettingsCommandAppliesAndSaves(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	os.MkdirAll(a.PiHome(), 0o755)
	toml := filepath.Join(a.PiHome(), "pi.toml")
	os.WriteFile(toml, []byte("# mine\nthinking = \"low\"\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic := &interactive{h: a, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ic.callbacks(), tui.Options{ManualFrames: true})
	done := make(chan struct{})
	go func() { defer close(done); ic.command("settings", "") }()
	screen.waitFor(t, ic.ui, "Settings")
	press(ic.ui, tcell.KeyDown, tcell.KeyDown, tcell.KeyEnter) // steering mode
	screen.waitFor(t, ic.ui, "all")
	press(ic.ui, tcell.KeyDown, tcell.KeyEnter)
	<-done
	if steer := a.State().SteeringMode; steer != agent.AllAtOnce {
		t.Fatalf("steering mode %s after /settings", steer)
	}
	data, _ := os.ReadFile(toml)
	if got := string(data); got != "# mine\nthinking = \"low\"\nsteering_mode = \"all\"\n" {
		t.Fatalf("pi.toml:\n%s", got)
	}
}

// /settings' theme row lists the built-ins and the theme files, switches at once and saves
// the choice under [ui].
func TestSettingsThemeAppliesAndSaves(t *testing.T) {
	a := newOpsApp(t, pitest.FauxModel(false))
	os.MkdirAll(filepath.Join(a.PiHome(), "themes"), 0o755)
	os.WriteFile(filepath.Join(a.PiHome(), "themes", "mine.toml"), []byte("border = 33\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ic := &interactive{h: a, ctx: ctx, cancel: cancel, uiReady: make(chan struct{})}
	screen := &screenLog{}
	ic.ui = tui.NewApp(screen, 120, 40, ic.callbacks(), tui.Options{ManualFrames: true, Theme: "dark",
		PiHome: a.PiHome(), Cwd: a.Cwd()})
	done := make(chan struct{})
	go func() { defer close(done); ic.command("settings", "") }()
	screen.waitFor(t, ic.ui, "Settings")
	typeText(ic.ui, "theme")
	screen.waitFor(t, ic.ui, "theme            dark")
	press(ic.ui, tcell.KeyEnter)
	screen.waitFor(t, ic.ui, "mine")
	typeText(ic.ui, "mine")
	press(ic.ui, tcell.KeyEnter)
	<-done
	screen.waitFor(t, ic.ui, "theme: mine (saved to")
	screen.waitFor(t, ic.ui, "\x1b[38;5;33m")
	if got := ic.ui.ThemeSetting(); got != "mine" {
		t.Errorf("theme %q after /settings", got)
	}
	data, _ := os.ReadFile(filepath.Join(a.PiHome(), "pi.toml"))
	if got := string(data); got != "\n[ui]\ntheme = \"mine\"\n" {
		t.Errorf("pi.toml:\n%q", got)
	}
}
