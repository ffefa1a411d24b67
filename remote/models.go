package remote

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"pi/config"
	"pi/tui"
	"pi/tui/settingsmenu"
)

// models.go is the model and the thinking level of an attached session (the picker, Ctrl+P,
// Shift+Tab, /scoped-models) and /settings.

// pickModel offers the server's models and sets the one chosen.
func (v *view) pickModel() {
	labels := v.modelLabels()
	if len(labels) == 0 {
		v.ui.Notify(tui.LevelWarning, "pi serve lists no models")
		return
	}
	current := max(0, slices.Index(labels, v.footer().Model))
	i, err := v.ui.SelectFrom(v.ctx, "Select a model", labels, current)
	if err != nil || labels[i] == v.footer().Model {
		return
	}
	if err := v.setModel(labels[i]); err != nil {
		v.ui.Notify(tui.LevelError, "set_model: "+err.Error())
	}
}

// modelLabels are the server's models as provider/id.
func (v *view) modelLabels() []string {
	models := v.modelList()
	labels := make([]string, len(models))
	for i, m := range models {
		labels[i] = str(m["provider"]) + "/" + str(m["id"])
	}
	return labels
}

// setModel sets the session's model, given as provider/id (v1's set_model).
func (v *view) setModel(label string) error {
	provider, id, _ := strings.Cut(label, "/")
	_, err := v.c.Request(v.ctx, map[string]any{"command": "set_model", "sessionId": v.session(),
		"model": map[string]any{"provider": provider, "id": id}})
	return err
}

// cycleModel is Ctrl+P (step 1) and Shift+Ctrl+P (-1): the next model of the session's scope.
func (v *view) cycleModel(step int) {
	data, err := v.rpc("cycle_model", map[string]any{"step": step})
	m, _ := data["model"].(map[string]any)
	switch {
	case err != nil:
		v.ui.Notify(tui.LevelError, err.Error())
	case m == nil:
		v.ui.Notify(tui.LevelInfo, "no other model to cycle to (see /scoped-models)")
	default:
		v.ui.SetStatus("model: " + str(m["provider"]) + "/" + str(m["id"]))
	}
}

// cycleThinking is Shift+Tab: the session's next thinking level.
func (v *view) cycleThinking() {
	data, err := v.rpc("cycle_thinking_level", nil)
	switch {
	case err != nil:
		v.ui.Notify(tui.LevelError, err.Error())
	case data == nil:
		v.ui.Notify(tui.LevelInfo, "this model does not think: its thinking level stays off")
	default:
		v.ui.SetStatus("thinking: " + str(data["level"]))
	}
}

// scopedModels is /scoped-models [patterns]: set the models Ctrl+P cycles through, or with no
// argument show them; "all" clears the scope.
func (v *view) scopedModels(args string) error {
	f := map[string]any{}
	if args = strings.TrimSpace(args); args != "" {
		var patterns []string
		for _, p := range strings.Split(args, ",") {
			if p = strings.TrimSpace(p); p != "" {
				patterns = append(patterns, p)
			}
		}
		f["patterns"] = patterns
	}
	data, err := v.rpc("scoped_models", f)
	if err != nil {
		return err
	}
	list, _ := data["models"].([]any)
	names := make([]string, 0, len(list))
	for _, m := range list {
		mm, _ := m.(map[string]any)
		names = append(names, str(mm["provider"])+"/"+str(mm["id"]))
	}
	what := "every available model (set a scope with /scoped-models ollama/*,openai/gpt-4o)"
	if data["scoped"] == true {
		what = "the scope: " + strings.Join(names, ", ")
	}
	v.ui.Notify(tui.LevelInfo, "ctrl+p cycles through "+what)
	return nil
}

// settings is /settings: the session's settings (applied to it in pi serve, not saved) and
// this screen's (saved to this machine's pi.toml).
func (v *view) settings() {
	state, err := v.rpc("get_state", nil)
	if err != nil {
		v.ui.Notify(tui.LevelError, "/settings: "+err.Error())
		return
	}
	session := func(label, field, command, arg string, values func(context.Context) []string) settingsmenu.Setting {
		return settingsmenu.Setting{Label: label, Values: values, Current: func() string { return str(state[field]) },
			Apply: func(_ context.Context, val string) error {
				_, err := v.rpc(command, map[string]any{arg: val})
				return err
			}}
	}
	rows := []settingsmenu.Setting{
		{Label: "model", Values: func(context.Context) []string { return v.modelLabels() }, Current: func() string { return v.footer().Model },
			Apply: func(_ context.Context, val string) error { return v.setModel(val) }},
		session("thinking level", "thinkingLevel", "set_thinking_level", "level", func(context.Context) []string { return config.ThinkingLevels() }),
		session("steering mode", "steeringMode", "set_steering_mode", "mode", settingsmenu.QueueModes),
		session("follow-up mode", "followUpMode", "set_follow_up_mode", "mode", settingsmenu.QueueModes),
		{Label: "auto-compaction", Values: settingsmenu.OnOff,
			Current: func() string { return settingsmenu.OnOffOf(state["autoCompactionEnabled"] == true) },
			Apply: func(_ context.Context, val string) error {
				_, err := v.rpc("set_auto_compaction", map[string]any{"enabled": val == "on"})
				return err
			}},
	}
	settingsmenu.Run(v.ctx, v.ui, filepath.Join(v.piHome, "pi.toml"), append(rows, settingsmenu.Screen(v.ui)...))
}
