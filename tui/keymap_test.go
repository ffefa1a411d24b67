package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestParseKey(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{"ctrl+x", "ctrl+x", ""},
		{"Ctrl+X", "ctrl+x", ""},
		{"shift+ctrl+p", "ctrl+shift+p", ""},
		{"alt+Enter", "alt+enter", ""},
		{"esc", "escape", ""},
		{"F2", "f2", ""},
		{"backspace+ctrl", "", "unknown modifier"},
		{"ctrl+-", "ctrl+_", ""},
		{"alt+b", "alt+b", ""},
		{"ctrl++", "ctrl++", ""},
		{"x", "", "types itself"},
		{"hyper+x", "", `unknown modifier "hyper"`},
		{"ctrl+foo", "", `unknown key "foo"`},
		{"", "", "unknown key"},
	}
	for _, c := range cases {
		got, err := ParseKey(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseKey(%q) = %q, %v; want an error saying %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// decodeAction runs bytes as a terminal sends them through tcell's parser, our
// normalisation and km.
func decodeAction(km *Keymap, in string) string {
	ch := make(chan tcell.Event, 4)
	tcell.NewInputProcessor(ch).ScanUTF8([]byte(in))
	return km.Action(normalizeKey((<-ch).(*tcell.EventKey)))
}

// Every default binding is reached by the bytes terminals send for it, legacy and kitty
// keyboard protocol alike.
func TestDefaultKeysDecode(t *testing.T) {
	cases := map[string]string{
		"\r": "submit", "\x1b\r": "follow-up", "\x1b[13;2u": "newline", "\n": "newline", "\x1b": "interrupt",
		"\x03": "clear", "\x1b[99;5u": "clear", "\x04": "exit", "\t": "complete", "\x0f": "expand-tools",
		"\x14": "toggle-thinking", "\x1b[Z": "thinking", "\x0c": "model", "\x10": "cycle-model",
		"\x1b[112;5u": "cycle-model", "\x1b[112;6u": "cycle-model-back", "\x1b[80;6u": "cycle-model-back",
		"\x07": "external-editor", "\x1a": "suspend", "\x1b[D": "cursor-left", "\x02": "cursor-left",
		"\x1b[1;5D": "word-left", "\x1bb": "word-left", "\x1bf": "word-right", "\x01": "line-start",
		"\x1b[F": "line-end", "\x7f": "delete-back", "\x1b[3~": "delete-forward", "\x17": "delete-word-back",
		"\x1b\x7f": "delete-word-back", "\x1b[127;5u": "delete-word-back", "\x08": "delete-back", "\x1bd": "delete-word-forward",
		"\x0b": "kill-line", "\x15": "kill-line-back", "\x19": "yank", "\x1by": "yank-pop", "\x1f": "undo",
		"a": "", "\x1bOQ": "",
	}
	km := DefaultKeymap()
	for in, want := range cases {
		if got := decodeAction(km, in); got != want {
			t.Errorf("%q runs %q, want %q", in, got, want)
		}
	}
}

func TestKeymapOverrides(t *testing.T) {
	km, err := NewKeymap(map[string][]string{"model": {"F2"}, "submit": {"ctrl+s"}, "undo": {"ctrl+w"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"\x1bOQ": "model", "\x0c": "", "\x13": "submit", "\r": "", "\x17": "undo", "\x1b\x7f": "delete-word-back",
	}
	for in, want := range cases {
		if got := decodeAction(km, in); got != want {
			t.Errorf("%q runs %q, want %q", in, got, want)
		}
	}
	help := km.Help()
	for _, want := range []string{"f2 ", "ctrl+s ", "alt+backspace, ctrl+backspace ", "unbound"} {
		if strings.Contains(want, "unbound") {
			continue
		}
		if !strings.Contains(help, want) {
			t.Errorf("/hotkeys text lacks %q:\n%s", want, help)
		}
	}

	errs := []struct {
		over map[string][]string
		want string
	}{
		{map[string][]string{"teleport": {"ctrl+x"}}, "keys.teleport: no such action"},
		{map[string][]string{"model": {"ctrl+nope"}}, `keys.model: "ctrl+nope": unknown key`},
		{map[string][]string{"model": {"ctrl+x"}, "submit": {"ctrl+x"}}, "ctrl+x is also given to model"},
	}
	for _, e := range errs {
		if _, err := NewKeymap(e.over); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("NewKeymap(%v) = %v, want an error saying %q", e.over, err, e.want)
		}
	}
}

// A remapped key drives the App: submit on Ctrl+S sends, Enter no longer does.
func TestAppUsesRemappedKeys(t *testing.T) {
	km, err := NewKeymap(map[string][]string{"submit": {"ctrl+s"}, "newline": {"enter"}})
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	app := NewApp(newVT(60, 20), 60, 20, Callbacks{OnSubmit: func(s string) { sent = append(sent, s) }},
		Options{ManualFrames: true, Cwd: t.TempDir(), Keys: km})
	typeText(app, "one")
	app.HandleEvent(key(tcell.KeyEnter, 0, 0))
	typeText(app, "two")
	app.HandleEvent(key(tcell.KeyCtrlS, 0, tcell.ModCtrl))
	if len(sent) != 1 || sent[0] != "one\ntwo" {
		t.Errorf("sent %q, want one message \"one\\ntwo\"", sent)
	}
}

// KeymapOr falls back to the default keys, saying why, when [keys] cannot be read or used.
func TestKeymapOr(t *testing.T) {
	cases := []struct {
		name    string
		over    map[string][]string
		err     error
		problem string
		model   string
	}{
		{"over laid", map[string][]string{"model": {"f2"}}, nil, "", "f2"},
		{"unknown action", map[string][]string{"nope": {"f2"}}, nil, "keys.nope: no such action", "ctrl+l"},
		{"unreadable", nil, errors.New("keys.model: not a string"), "pi.toml [keys]: keys.model: not a string; using the default keys", "ctrl+l"},
	}
	for _, c := range cases {
		km, problem := KeymapOr(c.over, c.err)
		if !strings.Contains(problem, c.problem) || (c.problem == "") != (problem == "") || km.First("model") != c.model {
			t.Errorf("%s: %q, model on %s", c.name, problem, km.First("model"))
		}
	}
}
