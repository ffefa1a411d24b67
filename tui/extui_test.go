package tui

import (
	"bytes"
	"io"
	"slices"

	"github.com/gdamore/tcell/v2"

	"pi/provider"
	"pi/tui/theme"
	"strings"
	"testing"
	"time"
)

// Scripts' widgets sit above (or below) the editor and their statuses make a footer line, in
// key order; clearing one removes it, and a title reaches the terminal as OSC 0.
func TestExtensionSlots(t *testing.T) {
	term := newVT(60, 20)
	var raw bytes.Buffer
	app := NewApp(io.MultiWriter(term, &raw), 60, 20, Callbacks{}, Options{ManualFrames: true, Cwd: t.TempDir()})
	app.SetFooter(FooterInfo{Cwd: "/p", Model: "faux-1"})
	app.ExtensionUI("setWidget", map[string]any{"widgetKey": "todo", "widgetLines": []string{"☐ write tests", "☑ plan"}, "widgetPlacement": "aboveEditor"})
	app.ExtensionUI("setWidget", map[string]any{"widgetKey": "hint", "widgetLines": []string{"below the editor"}, "widgetPlacement": "belowEditor"})
	app.ExtensionUI("setStatus", map[string]any{"statusKey": "b-plan", "statusText": "⏸ plan"})
	app.ExtensionUI("setStatus", map[string]any{"statusKey": "a-lint", "statusText": "lint ok"})
	app.ExtensionUI("set_editor_text", map[string]any{"text": "draft"})
	app.Flush()
	rows := screenRows(term)
	find := func(s string) int {
		for i, r := range rows {
			if strings.Contains(r, s) {
				return i
			}
		}
		return -1
	}
	todo, editor, below, footer, status := find("☐ write tests"), find("draft"), find("below the editor"), find("faux-1"), find("lint ok · ⏸ plan")
	if todo < 0 || editor < 0 || below < 0 || footer < 0 || status < 0 || !(todo < editor && editor < below && below < footer && footer < status) {
		t.Fatalf("rows todo=%d editor=%d below=%d footer=%d status=%d:\n%s", todo, editor, below, footer, status, strings.Join(rows, "\n"))
	}
	app.ExtensionUI("setWidget", map[string]any{"widgetKey": "todo"})
	app.ExtensionUI("setStatus", map[string]any{"statusKey": "a-lint"})
	app.ExtensionUI("setTitle", map[string]any{"title": "pi: work\x07"})
	app.Flush()
	rows = screenRows(term)
	if find("write tests") >= 0 || find("lint ok") >= 0 || find("⏸ plan") < 0 {
		t.Fatalf("after clearing:\n%s", strings.Join(rows, "\n"))
	}
	if !strings.Contains(raw.String(), "\x1b]0;pi: work\a") {
		t.Fatalf("no title sequence")
	}
}

// A script's shortcut runs on its key when no action has that key, and /hotkeys lists it,
// saying when an action holds the key.
func TestScriptShortcuts(t *testing.T) {
	got := make(chan string, 2)
	app, _, _ := newTestApp(t, 60, 20, Callbacks{OnShortcut: func(k string) { got <- k }})
	app.SetShortcuts([]Shortcut{{Key: "Ctrl+Alt+P", Description: "toggle plan mode"}, {Key: "ctrl+l", Description: "clash"}})
	app.HandleEvent(key(tcell.KeyRune, 'p', tcell.ModCtrl|tcell.ModAlt))
	app.HandleEvent(key(tcell.KeyCtrlL, 0, tcell.ModCtrl))
	select {
	case k := <-got:
		if k != "Ctrl+Alt+P" {
			t.Fatalf("shortcut %q", k)
		}
	default:
		t.Fatal("the shortcut did not run")
	}
	if len(got) != 0 {
		t.Fatalf("a key an action holds ran a shortcut: %q", <-got)
	}
	help := app.ShortcutHelp()
	if !strings.Contains(help, "toggle plan mode") || !strings.Contains(help, "clash (taken by model)") {
		t.Fatalf("help %q", help)
	}
}

// A script tool's render_call and render_result texts replace the box's summary and output;
// ctrl+o (expanded) still shows the whole output.
func TestToolRenderTexts(t *testing.T) {
	collapsed, expanded := false, true
	for _, exp := range []*bool{&collapsed, &expanded} {
		tv := &toolView{name: "todo", args: map[string]any{"action": "add"}, state: toolDone, expanded: exp, now: time.Now, th: theme.Dark()}
		tv.setOutput([]provider.Block{provider.Text("1. [ ] a\n2. [ ] b")})
		tv.setDetails(map[string]any{"pi_render_call": "add “b”", "pi_render_result": "2 items"})
		got := strings.Join(tv.Render(60), "\n")
		if !strings.Contains(got, "add “b”") || strings.Contains(got, "action=") {
			t.Fatalf("header: %q", got)
		}
		if *exp != strings.Contains(got, "2. [ ] b") || *exp == strings.Contains(got, "2 items") {
			t.Fatalf("expanded=%v: %q", *exp, got)
		}
	}
}

// A render_shell = "self" tool's box is its own texts alone: no icon, name or frame; ctrl+o
// (expanded) and a running call still get pi's box.
func TestToolRenderShellSelf(t *testing.T) {
	collapsed, expanded := false, true
	cases := []struct {
		name     string
		exp      *bool
		state    toolState
		details  map[string]any
		want     []string // exactly these lines, or (nil) pi's framed box
		framedOK bool
	}{
		{"self", &collapsed, toolDone, map[string]any{"pi_render_call": "☐ add b", "pi_render_result": "1. a\n2. b", "pi_render_shell": "self"},
			[]string{"☐ add b", "1. a", "2. b"}, false},
		{"self expanded", &expanded, toolDone, map[string]any{"pi_render_result": "2 items", "pi_render_shell": "self"}, nil, true},
		{"default", &collapsed, toolDone, map[string]any{"pi_render_result": "2 items", "pi_render_shell": "default"}, nil, true},
		{"self without texts", &collapsed, toolDone, map[string]any{"pi_render_shell": "self"}, nil, true},
	}
	for _, tc := range cases {
		tv := &toolView{name: "todo", args: map[string]any{"action": "add"}, state: tc.state, expanded: tc.exp, now: time.Now, th: theme.Dark()}
		tv.setOutput([]provider.Block{provider.Text("1. [ ] a\n2. [ ] b")})
		tv.setDetails(tc.details)
		got := tv.Render(60)
		framed := strings.Contains(strings.Join(got, "\n"), "todo")
		if tc.want != nil && !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if framed != tc.framedOK {
			t.Errorf("%s: pi's frame drawn %v, want %v: %q", tc.name, framed, tc.framedOK, got)
		}
	}
}
