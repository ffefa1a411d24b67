package server

import (
	"context"
	"sort"
	"time"

	"pi/config"
	"pi/provider"
)

// modelCache is the last answer of Options.Models.
type modelCache struct {
	list   []ModelMetadata
	at     time.Time
	asking bool
}

// modelsMaxAge is how long a list of models is shown before a hello asks for a new one.
const modelsMaxAge = time.Minute

// refreshModels asks Options.Models in the background, unless it is being asked or answered
// less than modelsMaxAge ago; the clients get a server snapshot with the answer.
func (s *Server) refreshModels(ctx context.Context) {
	s.mu.Lock()
	m := &s.models
	if s.opts.Models == nil || m.asking || !m.at.IsZero() && time.Since(m.at) < modelsMaxAge {
		s.mu.Unlock()
		return
	}
	m.asking = true
	s.mu.Unlock()
	go func() {
		list := flattenModels(s.opts.Models(ctx))
		s.mu.Lock()
		m.list, m.at, m.asking = list, time.Now(), false
		s.mu.Unlock()
		s.serverChanged()
	}()
}

// flattenModels lists every provider's models, each once.
func flattenModels(pms []config.ProviderModels) []ModelMetadata {
	seen := map[string]bool{}
	out := []ModelMetadata{}
	for _, pm := range pms {
		for _, m := range pm.Models {
			m.Provider = orElse(m.Provider, pm.Provider)
			if key := m.Provider + "/" + m.ID; !seen[key] {
				seen[key] = true
				out = append(out, modelMetadata(m))
			}
		}
	}
	return out
}

// modelsLocked is the models clients are offered: the last list asked for, then the models
// of live sessions it does not name.
func (s *Server) modelsLocked() []ModelMetadata {
	out := append([]ModelMetadata{}, s.models.list...)
	seen := map[string]bool{}
	for _, m := range out {
		seen[m.Provider+"/"+m.ID] = true
	}
	for _, m := range s.liveModelsLocked() {
		if !seen[m.Provider+"/"+m.ID] {
			out = append(out, m)
		}
	}
	return out
}

// liveModelsLocked lists the models the live sessions use, when the server was not given a
// list: a client can then at least name the models in use.
func (s *Server) liveModelsLocked() []ModelMetadata {
	seen := map[string]bool{}
	out := []ModelMetadata{}
	for _, l := range s.sessions {
		m := l.ag.Model()
		if key := m.Provider + "/" + m.ID; !seen[key] {
			seen[key] = true
			out = append(out, modelMetadata(m))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider+out[i].ID < out[j].Provider+out[j].ID })
	return out
}

// modelMetadata describes a model as the protocol does; limits pi does not know are 1.
func modelMetadata(m provider.Model) ModelMetadata {
	input := []string{}
	for _, in := range m.Input {
		if in == "text" || in == "image" {
			input = append(input, in)
		}
	}
	levels := []string{"off"}
	if m.Reasoning {
		levels = append([]string{}, thinkingLevels()[:6]...)
	}
	return ModelMetadata{Provider: orUnknown(m.Provider), ID: orUnknown(m.ID), Name: orUnknown(orElse(m.Name, m.ID)),
		API: orUnknown(m.API), Reasoning: m.Reasoning, Input: input, ContextWindow: max(m.ContextWindow, 1),
		MaxTokens: max(m.MaxTokens, 1), Cost: ModelCost{Input: max(m.Cost.Input, 0), Output: max(m.Cost.Output, 0),
			CacheRead: max(m.Cost.CacheRead, 0), CacheWrite: max(m.Cost.CacheWrite, 0)},
		SupportedThinkingLevels: levels, Authenticated: true}
}

func orElse(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
