package live

// settings.go holds what a user changes about a live session between prompts: the model, the
// thinking level, how the queues drain, automatic retry and compaction. Changes of model and
// thinking level are recorded in the session, as pi does.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"pi/agent"
	"pi/config"
	"pi/lua"
	"pi/provider"
	"pi/session"
)

// settings changes the agent's model and settings. Its mutex guards the overrides.
type settings struct {
	agent   *agent.Agent
	cfg     *config.Config
	rec     *recorder
	scripts *scripts
	stderr  io.Writer

	mu         sync.Mutex
	steerMode  agent.QueueMode // "" means the configured mode
	followMode agent.QueueMode
	retryOff   bool
	compaction *bool       // set_auto_compaction; nil means as configured
	waiting    atomic.Bool // a failed call is waiting to be retried
	scoped     []string    // --models: the patterns Ctrl+P and cycle_model go through
}

// setScoped sets the models that cycling goes through ("provider/model" patterns, * as in a
// shell; none means every available model).
func (s *settings) setScoped(patterns []string) error {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("model pattern %q: %w", p, err)
		}
	}
	s.mu.Lock()
	s.scoped = patterns
	s.mu.Unlock()
	return nil
}

// isScoped reports whether --models or /scoped-models narrowed cycling.
func (s *settings) isScoped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.scoped) > 0
}

// scopedModels is what cycling goes through, and whether a scope narrows it.
func (s *settings) scopedModels(ctx context.Context) ([]provider.Model, bool) {
	all := s.availableModels(ctx)
	s.mu.Lock()
	patterns := s.scoped
	s.mu.Unlock()
	if len(patterns) == 0 {
		return all, false
	}
	cur := s.agent.Model()
	var out []provider.Model
	for _, m := range all {
		if sameModel(m, cur) || slices.ContainsFunc(patterns, func(p string) bool { ok, _ := path.Match(p, m.Label()); return ok }) {
			out = append(out, m)
		}
	}
	return out, true
}

// retrying wraps p so that transient failures are retried as configured, and reported.
func (s *settings) retrying(p provider.Provider) provider.Provider {
	p = lua.HookProvider(p, func() *lua.Runtime { return s.scripts.rt }) // before_provider_request
	return &provider.Retrying{Provider: p, Policy: s.retryPolicy(), Notify: s.retryNotice}
}

// retryNotice reports a retry as events and remembers whether one is waiting (abort_retry).
func (s *settings) retryNotice(n provider.RetryNotice) {
	s.waiting.Store(n.Start)
	s.agent.RetryNotice(n)
}

// retryWaiting reports whether a failed call is waiting to be retried.
func (s *settings) retryWaiting() bool { return s.waiting.Load() }

// retryPolicy is the configured policy, or none when the user switched retrying off.
func (s *settings) retryPolicy() provider.RetryPolicy {
	p := s.cfg.RetryPolicy()
	s.mu.Lock()
	if s.retryOff {
		p.MaxRetries = 0
	}
	s.mu.Unlock()
	return p
}

// setModel switches to spec ("provider/model") for the next call, records a model_change and
// clamps the thinking level to what the new model supports. source tells scripts
// (model_select) whether the user set or cycled it.
func (s *settings) setModel(ctx context.Context, spec, source string) (provider.Model, error) {
	p, m, err := s.resolve(ctx, spec)
	if err != nil {
		return provider.Model{}, fmt.Errorf("model %q: %w", spec, err)
	}
	return m, s.use(p, m, source)
}

// use switches to model m of provider p (bare: use wraps it to retry), as setModel does.
func (s *settings) use(p provider.Provider, m provider.Model, source string) error {
	previous := s.agent.Model()
	s.agent.SetProvider(s.retrying(p), m)
	s.scripts.emit("model_select", map[string]any{"model": m, "previous_model": previous, "source": source})
	if _, err := s.rec.session().AppendModelChange(m.Provider, m.ID); err != nil {
		return fmt.Errorf("recording the switch to %s: %w", m.Label(), err)
	}
	_, err := s.setThinking(config.LevelOrOff(s.thinking()))
	return err
}

// resolve is cfg.ResolveModel, asked again once the scripts are loaded when no provider has
// the model: it may be one they register.
func (s *settings) resolve(ctx context.Context, spec string) (provider.Provider, provider.Model, error) {
	p, m, err := s.cfg.ResolveModel(ctx, spec)
	if errors.Is(err, config.ErrNotConfigured) && s.scripts.rt != nil && s.scripts.rt.Ready(ctx) == nil {
		return s.cfg.ResolveModel(ctx, spec)
	}
	return p, m, err
}

// restoreModel moves to a resumed session's model when it can be set up, and otherwise keeps
// the current one with a warning: an old session must not be unusable.
func (s *settings) restoreModel(spec string) {
	p, m, err := s.resolve(context.Background(), spec)
	cur := s.agent.Model()
	if err != nil {
		fmt.Fprintf(s.stderr, "pi: warning: the session used %s, which is not available (%v); using %s/%s\n",
			spec, err, cur.Provider, cur.ID)
		return
	}
	s.agent.SetProvider(s.retrying(p), m)
	s.scripts.emit("model_select", map[string]any{"model": m, "previous_model": cur, "source": "restore"})
}

// availableModels lists the models of every provider that answers, with the current model
// first when no provider lists it (the scripted test model, a model the server stopped
// listing).
func (s *settings) availableModels(ctx context.Context) []provider.Model {
	cur := s.agent.Model()
	var out []provider.Model
	for _, pm := range s.cfg.ListModels(ctx) {
		out = append(out, pm.Models...)
	}
	if !isNoModel(cur) && !slices.ContainsFunc(out, func(m provider.Model) bool { return sameModel(m, cur) }) {
		out = append([]provider.Model{cur}, out...)
	}
	return out
}

// sameModel: an Ollama model asked for as "name" is the "name:latest" its server lists.
func sameModel(x, y provider.Model) bool { return x.Same(y) }

// cycleModel moves to the next model of the scope (every available one without); nil when
// there is no other.
func (s *settings) cycleModel(ctx context.Context, step int) (*provider.Model, error) {
	models, _ := s.scopedModels(ctx)
	if len(models) < 2 {
		return nil, nil
	}
	cur := s.agent.Model()
	i := slices.IndexFunc(models, func(m provider.Model) bool { return sameModel(m, cur) })
	next := models[((i+step)%len(models)+len(models))%len(models)]
	m, err := s.setModel(ctx, next.Provider+"/"+next.ID, "cycle")
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// thinkingCycle is the order Shift+Tab and cycle_thinking_level go through. xhigh is left out:
// few models have it, and a cycle that lands on an unsupported level helps nobody; max, the
// model's highest whatever it is, is always there.
func thinkingCycle() []string { return []string{"off", "minimal", "low", "medium", "high", "max"} }

// thinking is the level in force ("" is off).
func (s *settings) thinking() string { return s.agent.State().Thinking }

// setThinking sets the thinking level for the next call and records a change. Models without
// reasoning only have "off". It returns the level in force.
func (s *settings) setThinking(level string) (string, error) {
	if !config.IsThinkingLevel(level) {
		return "", fmt.Errorf("thinking level %q: want one of %s", level, strings.Join(config.ThinkingLevels(), ", "))
	}
	if !s.agent.Model().Reasoning {
		level = "off"
	}
	previous := config.LevelOrOff(s.thinking())
	if level == previous {
		return level, nil
	}
	s.agent.SetThinking(level)
	s.scripts.emit("thinking_level_select", map[string]any{"level": level, "previous_level": previous})
	if _, err := s.rec.session().AppendThinkingLevel(level); err != nil {
		return level, fmt.Errorf("recording thinking level %s: %w", level, err)
	}
	return level, nil
}

// cycleThinking moves to the next thinking level; ok is false for a model without reasoning.
func (s *settings) cycleThinking() (level string, ok bool, err error) {
	if !s.agent.Model().Reasoning {
		return "", false, nil
	}
	levels := thinkingCycle()
	i := slices.Index(levels, config.LevelOrOff(s.thinking()))
	level, err = s.setThinking(levels[(i+1)%len(levels)])
	return level, err == nil, err
}

// queueModes are the steering and follow-up modes in force.
func (s *settings) queueModes() (steer, follow agent.QueueMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	steer, follow = s.steerMode, s.followMode
	if steer == "" {
		steer = agent.QueueMode(s.cfg.SteeringMode).OrDefault()
	}
	if follow == "" {
		follow = agent.QueueMode(s.cfg.FollowUpMode).OrDefault()
	}
	return steer, follow
}

// setQueueMode changes how one queue drains; which is "steer" or "followUp".
func (s *settings) setQueueMode(which string, mode agent.QueueMode) error {
	if mode != agent.OneAtATime && mode != agent.AllAtOnce {
		return fmt.Errorf("queue mode %q: want %q or %q", mode, agent.OneAtATime, agent.AllAtOnce)
	}
	steer, follow := s.queueModes()
	if which == "steer" {
		steer = mode
	} else {
		follow = mode
	}
	s.mu.Lock()
	s.steerMode, s.followMode = steer, follow
	s.mu.Unlock()
	s.agent.SetQueueModes(steer, follow)
	return nil
}

// setAutoRetry switches automatic retrying of transient provider failures on or off, from the
// next model call on.
func (s *settings) setAutoRetry(on bool) {
	s.mu.Lock()
	s.retryOff = !on
	s.mu.Unlock()
	if r, ok := s.agent.Provider().(*provider.Retrying); ok {
		s.agent.SetProvider(&provider.Retrying{Provider: r.Provider, Policy: s.retryPolicy(), Notify: r.Notify},
			s.agent.Model())
	}
}

// setAutoCompaction switches threshold and overflow compaction on or off, from the next check
// on; a run in progress may be the one that checks.
func (s *settings) setAutoCompaction(on bool) {
	s.mu.Lock()
	s.compaction = &on
	s.mu.Unlock()
}

// compactionSettings are the [compaction] table over the defaults, with the user's switch.
func (s *settings) compactionSettings() session.Settings {
	out := session.DefaultSettings()
	c := s.cfg.Compaction
	if c.Enabled != nil {
		out.Enabled = *c.Enabled
	}
	s.mu.Lock()
	if s.compaction != nil {
		out.Enabled = *s.compaction
	}
	s.mu.Unlock()
	out.ReserveTokens, out.KeepRecentTokens = c.ReserveTokens, c.KeepRecentTokens
	return out
}
