// Package settingsmenu is the /settings menu of pi's terminal front ends (the local terminal UI
// and `pi attach`): rows of settings with their values, one picked and changed on the screen,
// applied at once and saved to pi.toml (comments and every other line kept). What each row
// changes is its front end's business: the rows come with their own Apply.
package settingsmenu

import (
	"context"
	"fmt"
	"slices"

	"pi/agent"
	"pi/config"
	"pi/tui"
)

// Setting is one row: where it is saved, its values, and how it applies.
type Setting struct {
	Label, Table, Key string // Table "" is pi.toml's top level
	Values            func(context.Context) []string
	Current           func() string
	Apply             func(context.Context, string) error
	// Saved is the value as pi.toml stores it; nil for a setting that is not saved (one of
	// a session served elsewhere).
	Saved func(string) any
}

// AsIs saves a value as the text it is.
func AsIs(v string) any { return v }

// OnOff are the values of a switch; SavedOnOff saves "on" as true, and OnOffOf is a switch's
// value.
func OnOff(context.Context) []string { return []string{"on", "off"} }
func SavedOnOff(v string) any        { return v == "on" }
func OnOffOf(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// QueueModes are the values of the steering and follow-up modes.
func QueueModes(context.Context) []string {
	return []string{string(agent.OneAtATime), string(agent.AllAtOnce)}
}

// Screen are the settings the screen itself holds: the theme and whether thinking is hidden.
func Screen(ui *tui.App) []Setting {
	return []Setting{
		{Label: "theme", Table: "ui", Key: "theme", Saved: AsIs,
			Values: func(context.Context) []string { return ui.Themes() }, Current: ui.ThemeSetting,
			Apply: func(_ context.Context, v string) error { return ui.UseTheme(v) }},
		{Label: "hide thinking", Table: "ui", Key: "hide_thinking", Saved: SavedOnOff, Values: OnOff,
			Current: func() string {
				if ui.ThinkingShown() {
					return "off"
				}
				return "on"
			},
			Apply: func(_ context.Context, v string) error { ui.ShowThinking(v == "off"); return nil }},
	}
}

// Run shows the settings, lets the user pick one and a value, applies it and saves it to the
// pi.toml at path. It reports whether a setting was changed.
func Run(ctx context.Context, ui *tui.App, path string, all []Setting) bool {
	rows := make([]string, len(all))
	for i, st := range all {
		rows[i] = fmt.Sprintf("%-16s %s", st.Label, st.Current())
	}
	i, err := ui.Select(ctx, "Settings (saved to "+path+")", rows)
	if err != nil {
		return false
	}
	st := all[i]
	values := st.Values(ctx)
	if len(values) == 0 {
		ui.Notify(tui.LevelWarning, "no values to choose for "+st.Label)
		return false
	}
	j, err := ui.SelectFrom(ctx, st.Label, values, max(0, slices.Index(values, st.Current())))
	if err != nil {
		return false
	}
	if err := st.Apply(ctx, values[j]); err != nil {
		ui.Notify(tui.LevelError, err.Error())
		return false
	}
	if st.Saved == nil {
		ui.Notify(tui.LevelInfo, fmt.Sprintf("%s: %s (for this session)", st.Label, values[j]))
		return true
	}
	if err := config.SaveSetting(path, st.Table, st.Key, st.Saved(values[j])); err != nil {
		ui.Notify(tui.LevelError, fmt.Sprintf("%s is %s for now, but not saved: %v", st.Label, values[j], err))
		return true
	}
	ui.Notify(tui.LevelInfo, fmt.Sprintf("%s: %s (saved to %s)", st.Label, values[j], path))
	return true
}
