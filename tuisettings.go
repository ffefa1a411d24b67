package main

// tuisettings.go is /settings: the common settings with their values, changed for this session
// at once and saved to $PI_HOME/pi.toml (comments and every other line kept).

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"pi/agent"
	"pi/config"
	"pi/tui"
)

// setting is one row of /settings: where it is saved, its values, and how it applies.
type setting struct {
	label, table, key string
	values            func(context.Context) []string
	current           func() string
	apply             func(context.Context, string) error
	saved             func(string) any // the value as pi.toml stores it
}

func settingsOf(h *harness) []setting {
	s := h.settings
	asIs := func(v string) any { return v }
	queue := func(which string) setting {
		key, label := "steering_mode", "steering mode"
		if which == "followUp" {
			key, label = "follow_up_mode", "follow-up mode"
		}
		return setting{label: label, key: key, saved: asIs,
			values: func(context.Context) []string { return []string{string(agent.OneAtATime), string(agent.AllAtOnce)} },
			current: func() string {
				steer, follow := s.queueModes()
				if which == "steer" {
					return string(steer)
				}
				return string(follow)
			},
			apply: func(_ context.Context, v string) error { return s.setQueueMode(which, agent.QueueMode(v)) }}
	}
	return []setting{
		{label: "model", key: "model", saved: asIs,
			values: func(ctx context.Context) []string {
				var out []string
				for _, m := range s.availableModels(ctx) {
					out = append(out, modelLabel(m))
				}
				return out
			},
			current: func() string { return modelLabel(h.agent.Model()) },
			apply:   func(ctx context.Context, v string) error { _, err := s.setModel(ctx, v, "set"); return err }},
		{label: "thinking level", key: "thinking", saved: asIs,
			values:  func(context.Context) []string { return config.ThinkingLevels() },
			current: func() string { return orOff(s.thinking()) },
			apply:   func(_ context.Context, v string) error { _, err := s.setThinking(v); return err }},
		queue("steer"), queue("followUp"),
		{label: "auto-compaction", table: "compaction", key: "enabled", saved: func(v string) any { return v == "on" },
			values: func(context.Context) []string { return []string{"on", "off"} },
			current: func() string {
				if s.compactionSettings().Enabled {
					return "on"
				}
				return "off"
			},
			apply: func(_ context.Context, v string) error { s.setAutoCompaction(v == "on"); return nil }},
	}
}

// screenSettings are the settings the terminal UI itself holds.
func screenSettings(ic *interactive) []setting {
	onOff := func(context.Context) []string { return []string{"on", "off"} }
	return []setting{
		{label: "hide thinking", table: "ui", key: "hide_thinking", saved: func(v string) any { return v == "on" },
			values: onOff,
			current: func() string {
				if ic.ui.ThinkingShown() {
					return "off"
				}
				return "on"
			},
			apply: func(_ context.Context, v string) error { ic.ui.ShowThinking(v == "off"); return nil }},
	}
}

// tuiSettings shows the settings, lets the user pick one and a value, applies it and saves it.
func tuiSettings(ic *interactive, _ string) {
	all := append(settingsOf(ic.h), screenSettings(ic)...)
	rows := make([]string, len(all))
	for i, st := range all {
		rows[i] = fmt.Sprintf("%-16s %s", st.label, st.current())
	}
	i, err := ic.ui.Select(ic.ctx, "Settings (saved to "+filepath.Join(ic.h.piHome, "pi.toml")+")", rows)
	if err != nil {
		return
	}
	st := all[i]
	values := st.values(ic.ctx)
	j, err := ic.ui.SelectFrom(ic.ctx, st.label, values, max(0, slices.Index(values, st.current())))
	if err != nil {
		return
	}
	if err := st.apply(ic.ctx, values[j]); err != nil {
		ic.ui.Notify(tui.LevelError, err.Error())
		return
	}
	path := filepath.Join(ic.h.piHome, "pi.toml")
	if err := config.SaveSetting(path, st.table, st.key, st.saved(values[j])); err != nil {
		ic.ui.Notify(tui.LevelError, fmt.Sprintf("%s is %s for now, but not saved: %v", st.label, values[j], err))
		return
	}
	ic.ui.Notify(tui.LevelInfo, fmt.Sprintf("%s: %s (saved to %s)", st.label, values[j], path))
	ic.updateFooter()
}
