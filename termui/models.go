package termui

import (
	"context"
	"strings"

	"pi/config"
	"pi/provider"
	"pi/rpcwire"
	"pi/tui"
	"pi/tui/settingsmenu"
)

// ModelLabel is how the UI names a model: provider/id.
func ModelLabel(m provider.Model) string {
	if m.Provider == "" {
		return m.ID
	}
	return m.Provider + "/" + m.ID
}

// sameModel: an Ollama model asked for as "name" is the "name:latest" its server lists.
func sameModel(a, b provider.Model) bool { return a.Same(b) }

// CycleThinking steps the thinking level (Shift+Tab).
func (c *Controller) CycleThinking() {
	level, ok, err := c.sess.CycleThinking(c.ctx)
	switch {
	case err != nil:
		c.ui.Notify(tui.LevelError, err.Error())
	case !ok:
		c.ui.Notify(tui.LevelInfo, c.currentModelName()+" does not think; thinking stays off")
	default:
		c.ui.SetStatus("thinking: " + level)
	}
	c.sess.Refresh(c.ctx)
}

// currentModelName is the model in force as a notice names it ("this model" if the session
// cannot say).
func (c *Controller) currentModelName() string {
	if st, err := c.sess.State(c.ctx); err == nil && st.Model.ID != "" {
		return st.Model.ID
	}
	return "this model"
}

// CycleModel is Ctrl+P (step 1) and Shift+Ctrl+P (-1): the next model of the scope.
func (c *Controller) CycleModel(step int) {
	m, err := c.sess.CycleModel(c.ctx, step)
	switch {
	case err != nil:
		c.ui.Notify(tui.LevelError, err.Error())
	case m == nil:
		c.ui.Notify(tui.LevelInfo, "no other model to cycle to (see /scoped-models)")
	default:
		c.ui.SetStatus("model: " + ModelLabel(*m))
	}
	c.sess.Refresh(c.ctx)
}

// PickModel is the model picker (Ctrl+L, /model): every model the session can use.
func (c *Controller) PickModel() {
	models, err := c.sess.Models(c.ctx)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	if len(models) == 0 {
		c.ui.Notify(tui.LevelWarning, "there is no model to pick")
		return
	}
	st, _ := c.sess.State(c.ctx) // without it the picker opens on the first model
	labels := make([]string, len(models))
	current := 0
	for i, m := range models {
		labels[i] = ModelLabel(m)
		if t := m.Traits(); t != "" {
			labels[i] += "  (" + t + ")"
		}
		if sameModel(m, st.Model) {
			current = i
		}
	}
	i, err := c.ui.SelectFrom(c.ctx, "Select a model", labels, current)
	if err != nil || sameModel(models[i], st.Model) {
		return
	}
	m, err := c.sess.SetModel(c.ctx, models[i].Provider, models[i].ID)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.ui.Notify(tui.LevelInfo, "model: "+ModelLabel(m))
	c.sess.Refresh(c.ctx)
}

// scopedModels is /scoped-models [patterns]: set the models Ctrl+P cycles through, or with no
// argument show them; "all" clears the scope.
func (c *Controller) scopedModels(args string) {
	if args = strings.TrimSpace(args); args != "" {
		patterns := config.SplitList(args)
		if args == "all" {
			patterns = nil
		}
		if err := c.sess.SetScope(c.ctx, patterns); err != nil {
			c.ui.Notify(tui.LevelError, err.Error())
			return
		}
	}
	models, scoped, err := c.sess.ScopedModels(c.ctx)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = ModelLabel(m)
	}
	what := "every available model (set a scope with /scoped-models ollama/*,openai/gpt-4o)"
	if scoped {
		what = "the scope: " + strings.Join(names, ", ")
	}
	c.ui.Notify(tui.LevelInfo, "ctrl+p cycles through "+what)
}

// settings is /settings: the session's settings and this screen's; a row is applied at once
// and saved to pi.toml where it has a place there (a session's settings only when Notes say
// they are saved).
func (c *Controller) settings(string) {
	st, err := c.sess.State(c.ctx)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	notes := c.sess.Notes(c.ctx)
	rows := c.sessionSettings(&st)
	if !notes.SettingsSaved {
		for i := range rows {
			rows[i].Key, rows[i].Table, rows[i].Saved = "", "", nil
		}
	}
	if settingsmenu.Run(c.ctx, c.ui, notes.SettingsFile, append(rows, settingsmenu.Screen(c.ui)...)) {
		c.sess.Refresh(c.ctx)
	}
}

// sessionSettings are the rows of the session's own settings; st is kept as they change.
func (c *Controller) sessionSettings(st *rpcwire.State) []settingsmenu.Setting {
	refresh := func(err error) error {
		if err == nil {
			if now, err := c.sess.State(c.ctx); err == nil {
				*st = now
			}
		}
		return err
	}
	queue := func(which, key, label string, current func() string) settingsmenu.Setting {
		return settingsmenu.Setting{Label: label, Key: key, Saved: settingsmenu.AsIs, Values: settingsmenu.QueueModes, Current: current,
			Apply: func(ctx context.Context, v string) error { return refresh(c.sess.SetQueueMode(ctx, which, v)) }}
	}
	return []settingsmenu.Setting{
		{Label: "model", Key: "model", Saved: settingsmenu.AsIs, Values: c.modelLabels,
			Current: func() string { return ModelLabel(st.Model) },
			Apply: func(ctx context.Context, v string) error {
				p, id, _ := strings.Cut(v, "/")
				_, err := c.sess.SetModel(ctx, p, id)
				return refresh(err)
			}},
		{Label: "thinking level", Key: "thinking", Saved: settingsmenu.AsIs,
			Values:  func(context.Context) []string { return config.ThinkingLevels() },
			Current: func() string { return config.LevelOrOff(st.ThinkingLevel) },
			Apply:   func(ctx context.Context, v string) error { return refresh(c.sess.SetThinking(ctx, v)) }},
		queue("steer", "steering_mode", "steering mode", func() string { return st.SteeringMode }),
		queue("followUp", "follow_up_mode", "follow-up mode", func() string { return st.FollowUpMode }),
		{Label: "auto-compaction", Table: "compaction", Key: "enabled", Saved: settingsmenu.SavedOnOff, Values: settingsmenu.OnOff,
			Current: func() string { return settingsmenu.OnOffOf(st.AutoCompactionEnabled) },
			Apply:   func(ctx context.Context, v string) error { return refresh(c.sess.SetAutoCompaction(ctx, v == "on")) }},
	}
}

func (c *Controller) modelLabels(ctx context.Context) []string {
	models, _ := c.sess.Models(ctx) // an empty list offers nothing to pick
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = ModelLabel(m)
	}
	return out
}
