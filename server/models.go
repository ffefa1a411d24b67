package server

import (
	"sort"

	"pi/provider"
)

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
