package config

import (
	"fmt"
	"sort"
)

// UIConfig is the [ui] table: how the terminal UI looks. The keys are in [keys].
type UIConfig struct {
	// Theme is "auto" (the default: dark or light after the terminal's background), "dark",
	// "light", the name of a theme file in $PI_HOME/themes/ or .pi/themes/, or a .toml path.
	Theme        string `toml:"theme"`
	HideThinking *bool  `toml:"hide_thinking"` // collapse thinking blocks; Ctrl+T toggles
}

// ThinkingHidden is hide_thinking: thinking starts collapsed unless it says false.
func (u UIConfig) ThinkingHidden() bool { return u.HideThinking == nil || *u.HideThinking }

// mergeUI lays a file's [ui] and [keys] over what earlier files set; a later file's binding
// of an action replaces the earlier one.
func (c *Config) mergeUI(f *Config) {
	if f.UI.Theme != "" {
		c.UI.Theme = f.UI.Theme
	}
	if f.UI.HideThinking != nil {
		c.UI.HideThinking = f.UI.HideThinking
	}
	for action, keys := range f.Keys {
		if c.Keys == nil {
			c.Keys = map[string]any{}
		}
		c.Keys[action] = keys
	}
}

// KeyBindings is the [keys] table as action → keys: `action = "ctrl+x"` or a list of keys.
// The names are checked by the terminal UI, which owns the actions and the key syntax.
func (c *Config) KeyBindings() (map[string][]string, error) {
	out := make(map[string][]string, len(c.Keys))
	actions := make([]string, 0, len(c.Keys))
	for a := range c.Keys {
		actions = append(actions, a)
	}
	sort.Strings(actions)
	for _, action := range actions {
		switch v := c.Keys[action].(type) {
		case string:
			out[action] = []string{v}
		case []any:
			keys := make([]string, 0, len(v))
			for _, k := range v {
				s, ok := k.(string)
				if !ok {
					return nil, fmt.Errorf("pi.toml: keys.%s: %v is not a key name (want a string such as \"ctrl+x\")", action, k)
				}
				keys = append(keys, s)
			}
			out[action] = keys
		default:
			return nil, fmt.Errorf("pi.toml: keys.%s = %v: want a key (\"ctrl+x\") or a list of keys", action, v)
		}
	}
	return out, nil
}
