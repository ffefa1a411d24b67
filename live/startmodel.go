package live

// startmodel.go is the model a session starts with when nothing, or nothing usable, names
// one: why none could be set up (the terminal UI starts anyway and says so), why pi picked
// the one it did on the local server, and resolving it again once the user has started the
// server or pulled a model.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"pi/provider"
)

// startModel is guarded by its mutex: the terminal UI reads it while a start dialog resolves
// the model again.
type startModel struct {
	mu         sync.Mutex
	problem    string         // why no model could be set up ("" when one was)
	picked     provider.Model // the model pi picked when nothing named one
	why        string         // why that one ("" when something named the model)
	spec       string         // the command line's model ("" for pi.toml's, or discovery)
	resolvable bool           // a model from pi.toml or discovery, not a scripted or given one
}

func (s *startModel) set(problem string, m provider.Model, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problem, s.picked, s.why = problem, m, why
}

func (s *startModel) problemText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problem
}

// PickedModel says which model pi picked and why, when nothing named one and that model is
// still the one in use: "no model configured; using ollama/qwen3:8b (the newest of 3 local
// models that calls tools; set model in pi.toml)". "" otherwise: a model pi.toml or --model
// named, or one a resumed session or the user switched to.
func (h *Session) PickedModel() string {
	s := &h.start
	s.mu.Lock()
	picked, why := s.picked, s.why
	s.mu.Unlock()
	if why == "" || !picked.Same(h.agent.Model()) {
		return ""
	}
	return fmt.Sprintf("no model configured; using %s (%s; set model in pi.toml)", picked.Label(), why)
}

// ResolveModelAgain resolves the model the session starts with once more, as at start, and
// switches to it: for a front end that has just started the model's server or pulled a model
// after the first try failed (ModelProblem). On failure the problem is the new error.
func (h *Session) ResolveModelAgain(ctx context.Context) (provider.Model, error) {
	s := &h.start
	s.mu.Lock()
	spec, resolvable := s.spec, s.resolvable
	s.mu.Unlock()
	if !resolvable {
		return provider.Model{}, errors.New("this session's model is not resolved from pi.toml: nothing to resolve again")
	}
	p, m, why, err := h.cfg.ResolveModelPicked(ctx, spec)
	if err != nil {
		s.set(err.Error(), noModel(), "")
		return provider.Model{}, err
	}
	if err := h.settings.use(p, m, "set"); err != nil {
		return m, err
	}
	s.set("", m, why)
	h.prewarm()
	return m, nil
}
