package tui

// keymap.go maps keys to named actions, the names [keys] in pi.toml remaps. A key is written
// as modifiers and a key joined by "+": "ctrl+x", "alt+enter", "shift+ctrl+p", "f2". The
// order of the modifiers does not matter; the canonical form is ctrl, alt, shift.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// Binding is one action, what it does, and the keys that run it.
type Binding struct {
	Action, Help string
	Keys         []string
}

// DefaultBindings are pi's keys; the editing keys are Emacs-style, as in pi.
func DefaultBindings() []Binding {
	return []Binding{
		{"submit", "send (steers while the agent works)", []string{"enter"}},
		{"follow-up", "queue a follow-up", []string{"alt+enter"}},
		{"newline", "new line", []string{"shift+enter", "ctrl+j"}},
		{"interrupt", "interrupt, take queued messages back; twice on an empty editor: /tree", []string{"escape"}},
		{"clear", "clear the editor; twice to quit", []string{"ctrl+c"}},
		{"exit", "quit (on an empty editor)", []string{"ctrl+d"}},
		{"complete", "complete /commands, @files and paths", []string{"tab"}},
		{"expand-tools", "expand or collapse tool output", []string{"ctrl+o"}},
		{"toggle-thinking", "show or hide thinking", []string{"ctrl+t"}},
		{"thinking", "next thinking level", []string{"shift+tab"}},
		{"model", "pick a model", []string{"ctrl+l"}},
		{"cycle-model", "next scoped model", []string{"ctrl+p"}},
		{"cycle-model-back", "previous scoped model (kitty keyboard protocol)", []string{"ctrl+shift+p"}},
		{"paste-image", "paste the clipboard's image", []string{"ctrl+v"}},
		{"external-editor", "edit in $VISUAL or $EDITOR", []string{"ctrl+g"}},
		{"agents", "the subagents: pick one to read its transcript (/agents)", []string{"alt+a"}},
		{"suspend", "suspend (fg to come back)", []string{"ctrl+z"}},
		{"cursor-left", "", []string{"left", "ctrl+b"}},
		{"cursor-right", "", []string{"right", "ctrl+f"}},
		{"cursor-up", "line up, or the previous prompt", []string{"up"}},
		{"cursor-down", "line down, or the next prompt", []string{"down"}},
		{"word-left", "", []string{"alt+left", "ctrl+left", "alt+b"}},
		{"word-right", "", []string{"alt+right", "ctrl+right", "alt+f"}},
		{"line-start", "", []string{"home", "ctrl+a"}},
		{"line-end", "", []string{"end", "ctrl+e"}},
		{"delete-back", "", []string{"backspace"}},
		{"delete-forward", "", []string{"delete"}},
		{"delete-word-back", "", []string{"ctrl+w", "alt+backspace", "ctrl+backspace"}},
		{"delete-word-forward", "", []string{"alt+d"}},
		{"kill-line", "delete to the end of the line", []string{"ctrl+k"}},
		{"kill-line-back", "delete to the start of the line", []string{"ctrl+u"}},
		{"yank", "paste what was deleted", []string{"ctrl+y"}},
		{"yank-pop", "cycle what ctrl+y pasted", []string{"alt+y"}},
		{"undo", "", []string{"ctrl+_", "ctrl+-"}},
	}
}

// Keymap finds the action of a key press. It is built once and not changed afterwards.
type Keymap struct {
	bindings []Binding
	byKey    map[string]string
}

// KeymapOr is NewKeymap(over), or the default keys and what is wrong when over cannot be
// used or err (reading [keys] of pi.toml) says why there is none.
func KeymapOr(over map[string][]string, err error) (*Keymap, string) {
	if err == nil {
		var km *Keymap
		if km, err = NewKeymap(over); err == nil {
			return km, ""
		}
	}
	return DefaultKeymap(), fmt.Sprintf("pi.toml [keys]: %v; using the default keys", err)
}

// NewKeymap is the default keys with overrides laid over them: an action named in overrides
// runs on exactly the keys given; a key given to an action is taken from any other. Unknown
// actions and keys that do not parse are errors naming them.
func NewKeymap(overrides map[string][]string) (*Keymap, error) {
	bindings := DefaultBindings()
	index := map[string]int{}
	for i, b := range bindings {
		index[b.Action] = i
	}
	actions := make([]string, 0, len(overrides))
	for a := range overrides {
		actions = append(actions, a)
	}
	sort.Strings(actions)
	taken := map[string]string{}
	for _, action := range actions {
		i, ok := index[action]
		if !ok {
			return nil, fmt.Errorf("keys.%s: no such action (the actions are listed by /hotkeys)", action)
		}
		var keys []string
		for _, k := range overrides[action] {
			canon, err := ParseKey(k)
			if err != nil {
				return nil, fmt.Errorf("keys.%s: %w", action, err)
			}
			if other, ok := taken[canon]; ok {
				return nil, fmt.Errorf("keys.%s: %s is also given to %s", action, canon, other)
			}
			taken[canon] = action
			keys = append(keys, canon)
		}
		bindings[i].Keys = keys
	}
	for i, b := range bindings {
		if _, ok := overrides[b.Action]; ok {
			continue
		}
		var keys []string
		for _, k := range b.Keys {
			canon, err := ParseKey(k)
			if err != nil {
				return nil, fmt.Errorf("default keys of %s: %w", b.Action, err)
			}
			if _, ok := taken[canon]; !ok && !slices.Contains(keys, canon) {
				keys = append(keys, canon)
			}
		}
		bindings[i].Keys = keys
	}
	km := &Keymap{bindings: bindings, byKey: map[string]string{}}
	for _, b := range bindings {
		for _, k := range b.Keys {
			km.byKey[k] = b.Action
		}
	}
	return km, nil
}

// DefaultKeymap is pi's keys without overrides.
func DefaultKeymap() *Keymap {
	km, err := NewKeymap(nil)
	if err != nil {
		panic(err) // the defaults are checked by the tests
	}
	return km
}

// Action is the action ev runs, or "".
func (km *Keymap) Action(ev *tcell.EventKey) string { return km.byKey[KeyName(ev)] }

// Keys are the keys of action, in canonical form.
func (km *Keymap) Keys(action string) []string {
	for _, b := range km.bindings {
		if b.Action == action {
			return b.Keys
		}
	}
	return nil
}

// First is the first key of action, or "unbound".
func (km *Keymap) First(action string) string {
	if keys := km.Keys(action); len(keys) > 0 {
		return keys[0]
	}
	return "unbound"
}

// StartHint is the start-up line naming the keys in force.
func (km *Keymap) StartHint() string {
	return km.First("submit") + " send · " + km.First("follow-up") + " queue · " + km.First("interrupt") +
		" stop · " + km.First("clear") + " twice quit · /hotkeys"
}

// Help lists every action with its keys, one per line, then what the editor does with what
// is typed: the text of /hotkeys.
func (km *Keymap) Help() string {
	var b strings.Builder
	for _, bd := range km.bindings {
		keys := "unbound"
		if len(bd.Keys) > 0 {
			keys = strings.Join(bd.Keys, ", ")
		}
		line := fmt.Sprintf("%-30s %s", keys, bd.Action)
		if bd.Help != "" {
			line += " · " + bd.Help
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("escape twice on an empty editor: /tree · up/down in an empty editor: earlier prompts\n" +
		"/command runs a command · @file attaches the file's text (or picture) to the prompt; ctrl+o shows it\n" +
		"!cmd runs a command, output to the model · !!cmd runs it for you only\n" +
		`remap any action in pi.toml: [keys] action = "ctrl+x" (or a list of keys)`)
	return b.String()
}

// keyNames are the named keys, by the name [keys] uses.
func keyNames() map[string]tcell.Key {
	m := map[string]tcell.Key{
		"enter": tcell.KeyEnter, "escape": tcell.KeyEscape, "tab": tcell.KeyTab, "backspace": tcell.KeyBackspace,
		"delete": tcell.KeyDelete, "insert": tcell.KeyInsert, "up": tcell.KeyUp, "down": tcell.KeyDown,
		"left": tcell.KeyLeft, "right": tcell.KeyRight, "home": tcell.KeyHome, "end": tcell.KeyEnd,
		"pageup": tcell.KeyPgUp, "pagedown": tcell.KeyPgDn,
	}
	for i := range 12 {
		m[fmt.Sprintf("f%d", i+1)] = tcell.KeyF1 + tcell.Key(i)
	}
	return m
}

// keyAliases are other spellings of keys, and the control keys terminals send as one byte.
func keyAliases() map[string]string {
	return map[string]string{"esc": "escape", "return": "enter", "space": " ", "pgup": "pageup", "pgdn": "pagedown",
		"ctrl+-": "ctrl+_", "ctrl+i": "tab", "ctrl+m": "enter", "ctrl+[": "escape"}
}

// ParseKey checks a key as [keys] writes it and returns its canonical form.
func ParseKey(s string) (string, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "+")
	if len(parts) > 1 && parts[len(parts)-1] == "" { // "ctrl++" is ctrl and plus
		parts = append(parts[:len(parts)-2], "+")
	}
	var ctrl, alt, shift bool
	for _, m := range parts[:len(parts)-1] {
		switch m {
		case "ctrl", "control", "c":
			ctrl = true
		case "alt", "meta", "option", "m":
			alt = true
		case "shift", "s":
			shift = true
		default:
			return "", fmt.Errorf("%q: unknown modifier %q (want ctrl, alt or shift)", s, m)
		}
	}
	key := parts[len(parts)-1]
	if a, ok := keyAliases()[key]; ok {
		key = a
	}
	if _, named := keyNames()[key]; !named && utf8.RuneCountInString(key) != 1 {
		return "", fmt.Errorf("%q: unknown key %q (want a letter, a digit, a sign, or enter, escape, tab, backspace, delete, up, down, left, right, home, end, pageup, pagedown, f1…f12)", s, key)
	}
	if !ctrl && !alt && utf8.RuneCountInString(key) == 1 {
		return "", fmt.Errorf("%q: a plain character types itself; bind it with ctrl+ or alt+", s)
	}
	canon := joinKey(ctrl, alt, shift, key)
	if a, ok := keyAliases()[canon]; ok {
		canon = a
	}
	return canon, nil
}

func joinKey(ctrl, alt, shift bool, key string) string {
	var b strings.Builder
	for _, m := range []struct {
		on   bool
		name string
	}{{ctrl, "ctrl+"}, {alt, "alt+"}, {shift, "shift+"}} {
		if m.on {
			b.WriteString(m.name)
		}
	}
	return b.String() + key
}

// KeyName is the canonical name of a key press after normalizeKey: "ctrl+p", "alt+enter",
// "shift+tab", "alt+b"; a plain character is itself.
func KeyName(ev *tcell.EventKey) string {
	mods := ev.Modifiers()
	ctrl, alt, shift := mods&tcell.ModCtrl != 0, mods&tcell.ModAlt != 0, mods&tcell.ModShift != 0
	k := ev.Key()
	switch {
	case k == tcell.KeyRune:
		r := ev.Rune()
		if ctrl && r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
			shift = true
		}
		return joinKey(ctrl, alt, shift, string(r))
	case k >= tcell.KeyCtrlA && k <= tcell.KeyCtrlZ && k != tcell.KeyTab && k != tcell.KeyEnter:
		return joinKey(true, alt, shift, string(rune('a'+k-tcell.KeyCtrlA)))
	case k == tcell.KeyCtrlUnderscore:
		return joinKey(true, alt, shift, "_")
	case k == tcell.KeyBacktab:
		return joinKey(ctrl, alt, true, "tab")
	}
	for name, key := range keyNames() {
		if key == k {
			return joinKey(ctrl, alt, shift, name)
		}
	}
	return ev.Name()
}
