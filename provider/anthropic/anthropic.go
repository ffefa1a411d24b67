// Package anthropic is pi's adapter for Anthropic's Messages API (/v1/messages over
// Server-Sent Events), which Anthropic serves and so do Ollama and some proxies. It carries
// thinking blocks with their signatures (and redacted thinking) back and forth, streams
// tool_use input as it arrives, marks prompt-cache breakpoints on the system prompt and on the
// newest message, and reports cache reads and writes in the usage.
//
// It owns the translation between pi's messages and this wire format only. It must not retry,
// compact, or log anything that carries a key.
package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"pi/provider"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// API is the wire-format name this adapter puts into messages and models.
const API = "anthropic"

// Version is the anthropic-version header value the adapter speaks.
const Version = "2023-06-01"

// Config says where the server is and how to authenticate.
type Config struct {
	BaseURL string            // the server root, "https://api.anthropic.com"; /v1/messages is appended
	APIKey  string            // sent as x-api-key
	Headers map[string]string // extra headers, e.g. anthropic-beta
	Client  *http.Client      // nil: http.DefaultClient
	// Timeouts bound every request; zero fields mean the defaults.
	Timeouts provider.StreamTimeouts
}

// Provider streams replies from one Messages API server. It is safe for concurrent use.
type Provider struct {
	cfg Config
}

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	cfg.BaseURL = strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1")
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.anthropic.com"
	}
	cfg.Client = wire.Watch(cfg.Client, cfg.BaseURL, cfg.Timeouts)
	return &Provider{cfg: cfg}
}

func (p *Provider) header(key string) http.Header {
	h := http.Header{}
	for k, v := range p.cfg.Headers {
		h.Set(k, v)
	}
	h.Set("anthropic-version", Version)
	if key != "" {
		h.Set("x-api-key", key)
	}
	return h
}

func (p *Provider) key(req *provider.Request) string {
	if req != nil && req.Options.APIKey != "" {
		return req.Options.APIKey
	}
	return p.cfg.APIKey
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	b := provider.NewBuilder(&req.Model, emit)
	b.Start()
	key := p.key(req)
	secrets := append(wire.HeaderSecrets(p.cfg.Headers), key) // what an error must not repeat
	r := buildRequest(req)
	body, err := json.Marshal(r)
	if err != nil {
		return wire.Fail(ctx, b, fmt.Errorf("encoding request for model %q: %w", req.Model.ID, err), secrets...)
	}
	hdr := p.header(key)
	hdr.Set("Accept", "text/event-stream")
	resp, err := wire.Post(ctx, p.cfg.Client, p.cfg.BaseURL+"/v1/messages", hdr, body)
	if err != nil {
		return wire.Fail(ctx, b, err, secrets...)
	}
	defer resp.Body.Close()
	s := &streamState{b: b, stop: provider.StopStop, text: textcalls.New(b, req)}
	if err := s.read(wire.NewSSEReader(wire.LimitReply(resp.Body, p.cfg.BaseURL, r.MaxTokens))); err != nil {
		s.text.Flush()
		return wire.Fail(ctx, b, err, secrets...)
	}
	s.text.Finish()
	provider.FinishUsage(b.Message().Usage, req.Model.Cost)
	return b.Done(s.stop)
}

// ListModels implements provider.ModelLister with GET /v1/models.
func (p *Provider) ListModels(ctx context.Context) ([]provider.Model, error) {
	resp, err := wire.Get(ctx, p.cfg.Client, p.cfg.BaseURL+"/v1/models?limit=1000", p.header(p.cfg.APIKey))
	if err != nil {
		return nil, fmt.Errorf("listing models at %s: %s", p.cfg.BaseURL, wire.Redact(err.Error(), append(wire.HeaderSecrets(p.cfg.Headers), p.cfg.APIKey)...))
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("listing models at %s: %w", p.cfg.BaseURL, err)
	}
	models := make([]provider.Model, 0, len(list.Data))
	for _, m := range list.Data {
		models = append(models, provider.Model{ID: m.ID, Name: m.DisplayName, API: API, BaseURL: p.cfg.BaseURL,
			Input: []string{"text", "image"}})
	}
	sort.Slice(models, func(i, j int) bool { return models[i].ID < models[j].ID })
	return models, nil
}
