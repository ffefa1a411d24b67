package main

// tuisettings.go is /settings: the common settings with their values, changed for this session
// at once and saved to $PI_HOME/pi.toml (the menu itself is package tui/settingsmenu).

import (
	"context"
	"path/filepath"

	"pi/agent"
	"pi/config"
	"pi/live"
	"pi/tui/settingsmenu"
)

func settingsOf(h *live.Session) []settingsmenu.Setting {
	queue := func(which string) settingsmenu.Setting {
		key, label := "steering_mode", "steering mode"
		if which == "followUp" {
			key, label = "follow_up_mode", "follow-up mode"
		}
		return settingsmenu.Setting{Label: label, Key: key, Saved: settingsmenu.AsIs, Values: settingsmenu.QueueModes,
			Current: func() string {
				st := h.State()
				if which == "steer" {
					return string(st.SteeringMode)
				}
				return string(st.FollowUpMode)
			},
			Apply: func(_ context.Context, v string) error { return h.SetQueueMode(which, agent.QueueMode(v)) }}
	}
	return []settingsmenu.Setting{
		{Label: "model", Key: "model", Saved: settingsmenu.AsIs,
			Values: func(ctx context.Context) []string {
				var out []string
				for _, m := range h.AvailableModels(ctx) {
					out = append(out, m.Label())
				}
				return out
			},
			Current: func() string { return h.Agent().Model().Label() },
			Apply:   func(ctx context.Context, v string) error { _, err := h.SetModel(ctx, v); return err }},
		{Label: "thinking level", Key: "thinking", Saved: settingsmenu.AsIs,
			Values:  func(context.Context) []string { return config.ThinkingLevels() },
			Current: func() string { return h.State().Thinking },
			Apply:   func(_ context.Context, v string) error { _, err := h.SetThinking(v); return err }},
		queue("steer"), queue("followUp"),
		{Label: "auto-compaction", Table: "compaction", Key: "enabled", Saved: settingsmenu.SavedOnOff, Values: settingsmenu.OnOff,
			Current: func() string { return settingsmenu.OnOffOf(h.State().AutoCompaction) },
			Apply:   func(_ context.Context, v string) error { h.SetAutoCompaction(v == "on"); return nil }},
	}
}

// tuiSettings shows the settings, lets the user pick one and a value, applies it and saves it.
func tuiSettings(ic *interactive, _ string) {
	all := append(settingsOf(ic.h), settingsmenu.Screen(ic.ui)...)
	if settingsmenu.Run(ic.ctx, ic.ui, filepath.Join(ic.h.PiHome(), "pi.toml"), all) {
		ic.updateFooter()
	}
}
