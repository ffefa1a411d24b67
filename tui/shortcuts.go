package tui

import (
	"fmt"
	"strings"
)

// Shortcut is a key a script bound (pi.register_shortcut). The keymap's actions keep their
// keys: a shortcut on a key an action has never runs, and /hotkeys says so.
type Shortcut struct {
	Key         string // as ParseKey reads it, e.g. "ctrl+alt+p"
	Description string
}

// SetShortcuts replaces the scripts' shortcuts. Keys that do not parse are left out of the
// map and listed by ShortcutHelp as such.
func (a *App) SetShortcuts(scs []Shortcut) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.shortcuts = scs
	a.shortcutKeys = map[string]string{}
	for _, s := range scs {
		if canon, err := ParseKey(s.Key); err == nil {
			a.shortcutKeys[canon] = s.Key
		}
	}
}

// shortcutKey is the callback of the script shortcut on the key pressed, when one has it
// and no action does.
func (a *App) shortcutKey(name, action string) (func(), bool) {
	key, ok := a.shortcutKeys[name]
	if !ok || action != "" || a.cb.OnShortcut == nil {
		return nil, false
	}
	return func() { a.cb.OnShortcut(key) }, true
}

// ShortcutHelp lists the scripts' shortcuts for /hotkeys, or "" when there are none.
func (a *App) ShortcutHelp() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.shortcuts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nscripts' shortcuts:")
	for _, s := range a.shortcuts {
		canon, err := ParseKey(s.Key)
		note := ""
		switch {
		case err != nil:
			note = " (not a key: " + err.Error() + ")"
		case a.opts.Keys.byKey[canon] != "":
			note = " (taken by " + a.opts.Keys.byKey[canon] + ")"
		}
		fmt.Fprintf(&b, "\n%-30s %s%s", s.Key, s.Description, note)
	}
	return b.String()
}
