// Package ollama is pi's adapter for Ollama's native API: /api/chat for replies, /api/show for
// a model's capabilities and context length (asked once per model and cached), /api/tags for
// the model list.
//
// The wire types and the /api/show and /api/tags calls are those of github.com/ollama/ollama/api,
// so requests are exactly what the server parses. The /api/chat stream is read by our own
// NDJSON reader instead of api.Client.Chat: that keeps the HTTP status and Retry-After of a
// failure, reports a malformed line as such, and closes the body the moment the context ends.
//
// Decisions the server would otherwise make silently are made here: options.num_ctx is always
// sent (Ollama's default is a few thousand tokens); truncate and shift are off, so a prompt
// that does not fit fails with an overflow error that pi answers by compacting, instead of
// Ollama dropping the start of the conversation; think is sent only to models that can think.
//
// Constrained sampling of tool-call arguments is not supported: Ollama (0.17.4) decodes tool
// calls without a grammar, and its format field constrains the whole reply to a schema, which
// would rule out a text answer. Small models' arguments are repaired and validated instead, and
// a call whose arguments still fail is asked for once more with format set to the tool's schema
// (ConstrainedArguments), where a reply of arguments alone is what is wanted.
//
// It owns the translation to and from Ollama's format only. It must not retry, compact, or log.
package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"pi/provider"
	"pi/provider/internal/wire"
	"pi/provider/textcalls"
)

// API is the wire-format name this adapter puts into messages and models.
const API = "ollama"

// Defaults for Config's zero values.
const (
	DefaultNumCtx    = 32768            // cap on a model's own maximum when no window is configured
	DefaultKeepAlive = 30 * time.Minute // a coding session pauses longer than Ollama's 5 minutes
)

// Config says where the server is and how to talk to it.
type Config struct {
	// BaseURL is the server's root, "http://127.0.0.1:11434". Empty means OLLAMA_HOST, as
	// Host reads it.
	BaseURL string
	APIKey  string            // a bearer token, for a server behind an authenticating proxy
	Headers map[string]string // extra headers on every request
	Client  *http.Client      // nil: http.DefaultClient
	// DefaultNumCtx caps the model's own context length when the model has no configured
	// ContextWindow; 0 means DefaultNumCtx.
	DefaultNumCtx int
	// KeepAlive is how long the server keeps the model loaded after a reply; 0 means
	// DefaultKeepAlive, negative means forever.
	KeepAlive time.Duration
	// Timeouts bound every request, /api/show and /api/tags too; zero fields mean the defaults.
	Timeouts provider.StreamTimeouts
}

// Provider streams replies from one Ollama server. It is safe for concurrent use.
type Provider struct {
	cfg    Config
	base   *url.URL
	client *api.Client

	mu    sync.Mutex
	infos map[string]*modelInfo // /api/show answers by model name
}

// New returns a provider for cfg. Getenv is consulted only when cfg.BaseURL is empty (pass
// os.Getenv); it may be nil.
func New(cfg Config, getenv func(string) string) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = Host(getenv)
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("ollama base URL %q: not an absolute URL", cfg.BaseURL)
	}
	if cfg.DefaultNumCtx <= 0 {
		cfg.DefaultNumCtx = DefaultNumCtx
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	httpClient := wire.Watch(cfg.Client, base.String(), cfg.Timeouts)
	cfg.Client = httpClient
	if hdr := cfg.header(); len(hdr) > 0 {
		// api.Client takes no headers; a transport adds them to /api/show and /api/tags.
		c := *httpClient
		c.Transport = &headerTransport{base: httpClient.Transport, header: hdr}
		httpClient = &c
	}
	return &Provider{cfg: cfg, base: base, client: api.NewClient(base, httpClient), infos: map[string]*modelInfo{}}, nil
}

// BaseURL is the server root this provider talks to.
func (p *Provider) BaseURL() string { return p.base.String() }

func (c *Config) header() http.Header {
	h := http.Header{}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
	return h
}

type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	b := provider.NewBuilder(&req.Model, emit)
	b.Start()
	secrets := append(wire.HeaderSecrets(p.cfg.Headers), p.cfg.APIKey) // what an error must not repeat
	info, err := p.info(ctx, req.Model.ID)
	if err != nil {
		return wire.Fail(ctx, b, err, secrets...)
	}
	chat, err := p.buildRequest(req, info)
	if err != nil {
		return wire.Fail(ctx, b, err, secrets...)
	}
	body, err := json.Marshal(chat)
	if err != nil {
		return wire.Fail(ctx, b, fmt.Errorf("encoding request for model %q: %w", req.Model.ID, err), secrets...)
	}
	hdr := p.cfg.header()
	hdr.Set("Accept", "application/x-ndjson")
	if k := req.Options.APIKey; k != "" {
		secrets = append(secrets, k)
		hdr.Set("Authorization", "Bearer "+k)
	}
	resp, err := wire.Post(ctx, p.cfg.Client, p.base.JoinPath("/api/chat").String(), hdr, body)
	if err != nil {
		return wire.Fail(ctx, b, err, secrets...)
	}
	defer resp.Body.Close()
	s := &streamState{b: b, text: textcalls.New(b, req)}
	reply := wire.LimitReply(resp.Body, p.BaseURL(), outputBudget(chat))
	if err := s.read(wire.NewNDJSONReader(reply)); err != nil {
		s.text.Flush()
		return wire.Fail(ctx, b, err, secrets...)
	}
	s.text.Finish()
	provider.FinishUsage(b.Message().Usage, req.Model.Cost)
	return b.Done(s.stop)
}

// outputBudget is the most tokens the reply may have: num_predict, else num_ctx, since with
// shift off the server stops when the context is full.
func outputBudget(chat *api.ChatRequest) int {
	if n, ok := chat.Options["num_predict"].(int); ok && n > 0 {
		return n
	}
	n, _ := chat.Options["num_ctx"].(int)
	return n
}

// ConstrainedArguments implements provider.ArgumentsConstrainer: the retry is sent with format
// set to the tool's parameter schema, which Ollama turns into a grammar over the model's output.
func (p *Provider) ConstrainedArguments(ctx context.Context, ar *provider.ArgumentsRequest) (provider.ArgumentsReply, error) {
	return provider.AskArguments(ctx, p, ar)
}

// WouldEvict implements provider.LoadChecker from /api/ps: a model that is not loaded while
// another is may take its place (pi cannot see how many the server keeps at once, so it
// assumes one).
func (p *Provider) WouldEvict(ctx context.Context, m provider.Model) (bool, error) {
	ps, err := p.client.ListRunning(ctx)
	if err != nil {
		return false, fmt.Errorf("asking %s which models are loaded: %w", p.base, err)
	}
	same := func(name string) bool {
		return name == m.ID || strings.TrimSuffix(name, ":latest") == strings.TrimSuffix(m.ID, ":latest")
	}
	for _, r := range ps.Models {
		if same(r.Name) || same(r.Model) {
			return false, nil
		}
	}
	return len(ps.Models) > 0, nil
}
