package config

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"pi/provider"
)

// WithDefinitions returns a copy of c whose providers include the definitions defs returns at
// each lookup (what a session's scripts registered: they may register more while pi runs). A
// definition named like a configured provider is laid over it. The copy belongs to one
// session: another session's scripts have their own.
func (c *Config) WithDefinitions(defs func() []provider.Definition) *Config {
	cp := *c
	cp.defs = defs
	return &cp
}

// namedProvider is one provider's name and its configuration, its definition laid over it.
type namedProvider struct {
	name string
	pc   *ProviderConfig
}

// providerList is every provider, sorted by name, from one reading of the scripts'
// definitions: scripts load and register providers in the background, so a name read from
// one reading could have no configuration in the next.
func (c *Config) providerList() []namedProvider {
	var defs []provider.Definition
	if c.defs != nil {
		defs = c.defs()
	}
	out := make([]namedProvider, 0, len(c.Providers)+len(defs))
	for name, pc := range c.Providers {
		out = append(out, namedProvider{name, layDefinition(pc, name, defs)})
	}
	for _, d := range defs {
		if _, ok := c.Providers[d.Name]; !ok && !slices.ContainsFunc(out, func(n namedProvider) bool { return n.name == d.Name }) {
			out = append(out, namedProvider{d.Name, defined(nil, d)})
		}
	}
	slices.SortFunc(out, func(a, b namedProvider) int { return strings.Compare(a.name, b.name) })
	return out
}

// layDefinition is pc with the first of defs that names it laid over it, as provider does.
func layDefinition(pc *ProviderConfig, name string, defs []provider.Definition) *ProviderConfig {
	for _, d := range defs {
		if d.Name == name {
			return defined(pc, d)
		}
	}
	return pc
}

// provider is the configuration of the provider name, with its definition laid over it; nil
// when there is neither.
func (c *Config) provider(name string) *ProviderConfig {
	if c.defs == nil {
		return c.Providers[name]
	}
	return layDefinition(c.Providers[name], name, c.defs())
}

// defined lays d over base (which may be nil) as pi does: set fields replace, models given
// replace the configured ones, and the rest is kept.
func defined(base *ProviderConfig, d provider.Definition) *ProviderConfig {
	pc := &ProviderConfig{}
	if base != nil {
		*pc = *base
		pc.Headers = maps.Clone(base.Headers)
	}
	pc.fromFile, pc.stream, pc.listModels = true, d.Stream, d.ListModels
	if d.Kind != "" {
		pc.Kind = d.Kind
	}
	if d.BaseURL != "" {
		pc.BaseURL = d.BaseURL
	}
	if d.APIKey != "" || d.APIKeyEnv != "" {
		pc.APIKeyCmd, pc.APIKeyEnv, pc.apiKey = "", d.APIKeyEnv, d.APIKey
	}
	for k, v := range d.Headers {
		if pc.Headers == nil {
			pc.Headers = map[string]string{}
		}
		pc.Headers[k] = v
	}
	if len(d.Models) > 0 {
		pc.Models = nil
		for _, m := range d.Models {
			pc.Models = append(pc.Models, modelConfig(m))
		}
	}
	return pc
}

// modelConfig is the configuration entry that describes m.
func modelConfig(m provider.Model) ModelConfig {
	r := m.Reasoning
	return ModelConfig{ID: m.ID, Name: m.Name, ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens, Reasoning: &r,
		Input: m.Input, Cost: CostConfig{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.CacheRead,
			CacheWrite: m.Cost.CacheWrite}}
}

// computedModel looks id up in the models a definition computes, for a model its static list
// does not have.
func computedModel(ctx context.Context, name string, pc *ProviderConfig, id string) (ModelConfig, bool, error) {
	if pc.listModels == nil {
		return ModelConfig{}, false, nil
	}
	ms, err := pc.listModels(ctx)
	if err != nil {
		return ModelConfig{}, false, fmt.Errorf("providers.%s: listing its models: %w", name, err)
	}
	i := slices.IndexFunc(ms, func(m provider.Model) bool { return m.ID == id })
	if i < 0 {
		return ModelConfig{}, false, nil
	}
	return modelConfig(ms[i]), true, nil
}

// computedLister lists what a definition's ListModels computes.
type computedLister func(context.Context) ([]provider.Model, error)

func (f computedLister) ListModels(ctx context.Context) ([]provider.Model, error) { return f(ctx) }

// ErrNotConfigured is what ResolveModel's error wraps when no provider has the model asked
// for: one that scripts register later may still have it.
var ErrNotConfigured = errors.New("no provider has the model")

type notConfigured struct{ error }

func (notConfigured) Is(target error) bool { return target == ErrNotConfigured }
