package remote

import (
	"fmt"
	"os"

	"pi/config"
	"pi/images"
	"pi/tui"
)

// local.go is what `pi attach` takes from this machine rather than from the server: the keys,
// the theme, whether thinking starts hidden and whether pictures show, as this user's pi.toml
// says (a project's own pi.toml is not read: it is the server's business whether to trust it).

// screenOptions are the terminal UI's options for a session working in cwd, and a problem
// with [keys] to show, if any.
func screenOptions(piHome, cwd string) (tui.Options, string) {
	here, _ := os.Getwd()
	cfg, err := config.Load(piHome, here, false)
	opts := tui.Options{Cwd: cwd, PiHome: piHome, Clipboard: images.Clipboard, Keys: tui.DefaultKeymap()}
	if err != nil {
		return opts, fmt.Sprintf("pi.toml: %v; using the defaults", err)
	}
	opts.Theme, opts.HideImages = cfg.UI.Theme, !cfg.ShowImages()
	opts.ShowThinking = cfg.UI.HideThinking != nil && !*cfg.UI.HideThinking
	over, err := cfg.KeyBindings()
	if err == nil {
		var km *tui.Keymap
		if km, err = tui.NewKeymap(over); err == nil {
			opts.Keys = km
			return opts, ""
		}
	}
	return opts, fmt.Sprintf("pi.toml [keys]: %v; using the default keys", err)
}
