package main

// tuisettings.go is /settings: the common settings with their values, changed for this session
// at once and saved to $PI_HOME/pi.toml (the menu itself is package tui/settingsmenu).

import (
	"context"
	"path/filepath"

	"pi/agent"
	"pi/config"
	"pi/tui/settingsmenu"
)

func settingsOf(h *harness) []settingsmenu.Setting {
	s := h.settings
	queue := func(which string) settingsmenu.Setting {
		key, label := "steering_mode", "steering mode"
		if which == "followUp" {
			key, label = "follow_up_mode", "follow-up mode"
		}
		return settingsmenu.Setting{Label: label, Key: key, Saved: settingsmenu.AsIs, Values: settingsmenu.QueueModes,
			Current: func() string {
				steer, follow := s.queueModes()
				if which == "steer" {
					return string(steer)
				}
				return string(follow)
			},
			Apply: func(_ context.Context, v string) error { return s.setQueueMode(which, agent.QueueMode(v)) }}
	}
	return []settingsmenu.Setting{
		{Label: "model", Key: "model", Saved: settingsmenu.AsIs,
			Values: func(ctx context.Context) []string {
				var out []string
				for _, m := range s.availableModels(ctx) {
					out = append(out, modelLabel(m))
				}
				return out
			},
			Current: func() string { return modelLabel(h.agent.Model()) },
			Apply:   func(ctx context.Context, v string) error { _, err := s.setModel(ctx, v, "set"); return err }},
		{Label: "thinking level", Key: "thinking", Saved: settingsmenu.AsIs,
			Values:  func(context.Context) []string { return config.ThinkingLevels() },
			Current: func() string { return config.LevelOrOff(s.thinking()) },
			Apply:   func(_ context.Context, v string) error { _, err := s.setThinking(v); return err }},
		queue("steer"), queue("followUp"),
		{Label: "auto-compaction", Table: "compaction", Key: "enabled", Saved: settingsmenu.SavedOnOff, Values: settingsmenu.OnOff,
			Current: func() string { return settingsmenu.OnOffOf(s.compactionSettings().Enabled) },
			Apply:   func(_ context.Context, v string) error { s.setAutoCompaction(v == "on"); return nil }},
	}
}

// tuiSettings shows the settings, lets the user pick one and a value, applies it and saves it.
func tuiSettings(ic *interactive, _ string) {
	all := append(settingsOf(ic.h), settingsmenu.Screen(ic.ui)...)
	if settingsmenu.Run(ic.ctx, ic.ui, filepath.Join(ic.h.piHome, "pi.toml"), all) {
		ic.updateFooter()
	}
}
