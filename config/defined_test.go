package config

import (
	"context"
	"errors"
	"slices"
	"testing"

	"pi/provider"
	"pi/provider/faux"
)

// A definition laid over a configured provider keeps what it does not set (pi keeps the
// models when none are given); a new one with its own stream is that stream; computed models
// are found by id; without definitions the same spec is an ErrNotConfigured.
func TestConfigDefinitions(t *testing.T) {
	c := fixture(t, configUserTOML, "", map[string]string{"WORK_KEY": "sk-work-123456"})
	if _, _, err := c.ResolveModel(context.Background(), "mine/m1"); !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("before: %v", err)
	}
	stream := faux.New()
	defs := []provider.Definition{
		{Name: "work", BaseURL: "http://proxy.example/v1", APIKey: "sk-literal-9876"},
		{Name: "mine", Kind: "lua", Stream: stream, Models: []provider.Model{{ID: "m1", ContextWindow: 4096}},
			ListModels: func(context.Context) ([]provider.Model, error) {
				return []provider.Model{{ID: "m9", MaxTokens: 77}}, nil
			}},
	}
	d := c.WithDefinitions(func() []provider.Definition { return defs })
	_, m, err := d.ResolveModel(context.Background(), "work/big")
	if err != nil || m.BaseURL != "http://proxy.example/v1" || m.ContextWindow != 65536 {
		t.Fatalf("work/big over the proxy: %+v %v", m, err)
	}
	if !slices.Contains(d.KeyValues(), "sk-literal-9876") {
		t.Error("a literal key is not among the keys to redact")
	}
	p, m, err := d.ResolveModel(context.Background(), "mine/m1")
	if err != nil || p != stream || m.API != "lua" || m.ContextWindow != 4096 {
		t.Fatalf("mine/m1: %v %+v %v", p, m, err)
	}
	if _, m, err = d.ResolveModel(context.Background(), "mine/m9"); err != nil || m.MaxTokens != 77 {
		t.Fatalf("computed mine/m9: %+v %v", m, err)
	}
	if _, m, err = d.ResolveModel(context.Background(), "mine"); err != nil || m.ID != "m1" {
		t.Fatalf("the provider's name alone: %+v %v", m, err)
	}
	var listed []string
	for _, pm := range d.ListModels(context.Background()) {
		for _, m := range pm.Models {
			listed = append(listed, pm.Provider+"/"+m.ID)
		}
	}
	if !slices.Contains(listed, "mine/m1") || !slices.Contains(listed, "mine/m9") {
		t.Fatalf("listed %v", listed)
	}
	if _, _, err := c.ResolveModel(context.Background(), "mine/m1"); !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("the original config changed: %v", err)
	}
}

// TestHeaderTokensAreRedacted: the tokens in a provider's and an MCP server's headers are
// among the keys tool output is cleaned of; other header values are not.
func TestHeaderTokensAreRedacted(t *testing.T) {
	c := fixture(t, `
[providers.gw]
kind = "openai"
base_url = "http://gw.example/v1"
headers = { Authorization = "Bearer gw-token-Qx7vR2mK9pL4", "HTTP-Referer" = "https://example.com/app" }

[mcp.servers.docs]
url = "http://127.0.0.1:9/mcp"
headers = { "X-Api-Key" = "mcp-key-Zt5wN3bH8" }
`, "", nil)
	out, _ := c.SecretPolicy().Redact("cat: Bearer gw-token-Qx7vR2mK9pL4 and mcp-key-Zt5wN3bH8, see https://example.com/app")
	if want := "cat: Bearer [redacted] and [redacted], see https://example.com/app"; out != want {
		t.Fatalf("redacted %q, want %q", out, want)
	}
}

// TestDefinitionsDroppedMidListing: a script that unregisters its provider while pi lists the
// providers (scripts run beside the listing) leaves no name without a configuration: each
// listing reads the definitions once.
func TestDefinitionsDroppedMidListing(t *testing.T) {
	c := fixture(t, configUserTOML, "", nil)
	listings := []func(*Config){
		func(d *Config) { d.KeyVars() },
		func(d *Config) { d.KeyValues() },
		func(d *Config) { _, _, _ = d.findModel("m1") },
		func(d *Config) { d.ListModels(context.Background()) },
	}
	for i, list := range listings {
		readings := 0
		d := c.WithDefinitions(func() []provider.Definition {
			if readings++; readings == 1 { // registered at the first reading, gone after it
				return []provider.Definition{{Name: "gone", Kind: "lua", Stream: faux.New(), Models: []provider.Model{{ID: "m1"}}}}
			}
			return nil
		})
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("listing %d with a provider dropped midway: %v", i, r)
				}
			}()
			list(d)
		}()
	}
}
