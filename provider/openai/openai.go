// Package openai is pi's adapter for the OpenAI chat-completions API, which OpenAI and most
// other servers speak: llama.cpp server, LM Studio, vLLM, Ollama's /v1, OpenRouter, Groq,
// DeepSeek. It streams over Server-Sent Events, assembles tool calls from argument fragments,
// reads reasoning text (reasoning_content or reasoning) as thinking, and lists models from
// /models.
//
// It owns the translation between pi's messages and this wire format only. It must not retry
// (provider.Retrying does), decide about compaction, or log anything that carries a key.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"pi/provider"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// API is the wire-format name this adapter puts into messages and models.
const API = "openai"

// Config says where the server is and how to authenticate.
type Config struct {
	// BaseURL ends at the API's version path, as in pi's models.json:
	// "http://127.0.0.1:1234/v1", "https://api.openai.com/v1".
	BaseURL string
	APIKey  string            // sent as a bearer token; empty for local servers
	Headers map[string]string // extra headers, e.g. OpenRouter's HTTP-Referer
	Client  *http.Client      // nil: http.DefaultClient
	// Timeouts bound every request; zero fields mean the defaults.
	Timeouts provider.StreamTimeouts
}

// Provider streams chat completions from one server. It is safe for concurrent use.
type Provider struct {
	cfg Config
}

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	cfg.Client = wire.Watch(cfg.Client, cfg.BaseURL, cfg.Timeouts)
	return &Provider{cfg: cfg}
}

func (p *Provider) key(req *provider.Request) string {
	if req != nil && req.Options.APIKey != "" {
		return req.Options.APIKey
	}
	return p.cfg.APIKey
}

func (p *Provider) header(key string) http.Header {
	h := http.Header{}
	for k, v := range p.cfg.Headers {
		h.Set(k, v)
	}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	b := provider.NewBuilder(&req.Model, emit)
	b.Start()
	key := p.key(req)
	secrets := append(wire.HeaderSecrets(p.cfg.Headers), key) // what an error must not repeat
	r := p.buildRequest(req)
	body, err := encode(r)
	if err != nil {
		return wire.Fail(ctx, b, fmt.Errorf("encoding request for model %q: %w", req.Model.ID, err), secrets...)
	}
	resp, err := wire.Post(ctx, p.cfg.Client, p.cfg.BaseURL+"/chat/completions", p.header(key), body)
	if err != nil {
		return wire.Fail(ctx, b, err, secrets...)
	}
	defer resp.Body.Close()
	s := &streamState{b: b, text: textcalls.New(b, req)}
	// Without max_tokens the server stops where the context window ends.
	budget := cmp.Or(r.MaxTokens, r.MaxCompletionTokens, req.Model.ContextWindow)
	if err := s.read(wire.NewSSEReader(wire.LimitReply(resp.Body, p.cfg.BaseURL, budget))); err != nil {
		s.text.Flush()
		return wire.Fail(ctx, b, err, secrets...)
	}
	s.finishToolCalls()
	s.text.Finish()
	provider.FinishUsage(b.Message().Usage, req.Model.Cost)
	return b.Done(s.stop)
}

// encode writes the request without HTML escapes: "<" as \u003c would cost five bytes more
// each time, in prompts full of tags and code.
func encode(r *chatRequest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ListModels implements provider.ModelLister with GET {BaseURL}/models. The servers say little
// beyond the ids; sizes and prices come from the configuration.
func (p *Provider) ListModels(ctx context.Context) ([]provider.Model, error) {
	resp, err := wire.Get(ctx, p.cfg.Client, p.cfg.BaseURL+"/models", p.header(p.cfg.APIKey))
	if err != nil {
		return nil, fmt.Errorf("listing models at %s: %s", safeURL(p.cfg.BaseURL), wire.Redact(err.Error(), append(wire.HeaderSecrets(p.cfg.Headers), p.cfg.APIKey)...))
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			ContextLength int    `json:"context_length"` // OpenRouter
			MaxModelLen   int    `json:"max_model_len"`  // vLLM
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("listing models at %s: %w", safeURL(p.cfg.BaseURL), err)
	}
	models := make([]provider.Model, 0, len(list.Data))
	for _, m := range list.Data {
		models = append(models, provider.Model{ID: m.ID, API: API, BaseURL: p.cfg.BaseURL,
			ContextWindow: max(m.ContextLength, m.MaxModelLen), Input: []string{"text"}})
	}
	sort.Slice(models, func(i, j int) bool { return models[i].ID < models[j].ID })
	return models, nil
}

func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "<invalid URL>"
	}
	p.RawQuery, p.User = "", nil
	return p.String()
}

// ConstrainedArguments implements provider.ArgumentsConstrainer: the retry is sent with
// response_format json_schema (llama.cpp's server, vLLM, LM Studio, Ollama's /v1 and OpenAI take
// it). A server that refuses it fails the retry, and the call gets its validation error as before.
func (p *Provider) ConstrainedArguments(ctx context.Context, ar *provider.ArgumentsRequest) (provider.ArgumentsReply, error) {
	return provider.AskArguments(ctx, p, ar)
}
