package ollama

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"

	"pi/provider"
	"pi/provider/internal/wire"
)

// modelInfo is what /api/show says about a model that matters to a request.
type modelInfo struct {
	capabilities  []string
	contextLength int    // the model's trained maximum; 0 if the server did not say
	harmony       bool   // gpt-oss: think takes "low"/"medium"/"high" instead of a boolean
	family        string // for listings
}

func (m *modelInfo) has(capability string) bool { return slices.Contains(m.capabilities, capability) }

// info returns the cached /api/show answer for model, asking the server the first time.
// Failures are not cached: the user may pull the model and try again.
func (p *Provider) info(ctx context.Context, model string) (*modelInfo, error) {
	p.mu.Lock()
	info, ok := p.infos[model]
	p.mu.Unlock()
	if ok {
		return info, nil
	}
	resp, err := p.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return nil, fmt.Errorf("asking Ollama at %s about model %q: %s", p.BaseURL(), model,
			p.errorText(err))
	}
	info = parseShow(resp)
	p.mu.Lock()
	p.infos[model] = info
	p.mu.Unlock()
	return info, nil
}

// errorText is err's text without the API key, and without api.Client's "Post <url>: " before
// a timeout, which names the server itself.
func (p *Provider) errorText(err error) string {
	var serr *wire.StreamError
	if errors.As(err, &serr) {
		err = serr
	}
	return wire.Redact(err.Error(), append(wire.HeaderSecrets(p.cfg.Headers), p.cfg.APIKey)...)
}

func parseShow(resp *api.ShowResponse) *modelInfo {
	info := &modelInfo{harmony: resp.Parser == "harmony", family: resp.Details.Family}
	for _, c := range resp.Capabilities {
		info.capabilities = append(info.capabilities, string(c))
	}
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	if n, ok := resp.ModelInfo[arch+".context_length"].(float64); ok {
		info.contextLength = int(n)
	}
	return info
}

// numCtx is the context size to ask for: the configured window, else the model's maximum
// capped by the default, since a 128k window costs memory a laptop does not have. Either way no
// more than the model's trained length: Ollama caps num_ctx there without a word.
func (p *Provider) numCtx(m *provider.Model, info *modelInfo) int {
	if m.ContextWindow > 0 {
		if info.contextLength > 0 && m.ContextWindow > info.contextLength {
			return info.contextLength
		}
		return m.ContextWindow
	}
	if info.contextLength > 0 && info.contextLength < p.cfg.DefaultNumCtx {
		return info.contextLength
	}
	return p.cfg.DefaultNumCtx
}

// Describe returns what the server tells about model id, for a configuration that names the
// model without describing it: ContextWindow is the num_ctx requests will use, Reasoning says
// whether it can think, Input has "image" when it has vision. It also reports the capabilities.
func (p *Provider) Describe(ctx context.Context, id string) (provider.Model, []string, error) {
	info, err := p.info(ctx, id)
	if err != nil {
		return provider.Model{}, nil, err
	}
	m := provider.Model{ID: id, API: API, BaseURL: p.BaseURL(), Reasoning: info.has("thinking"), Input: []string{"text"}}
	if info.has("vision") {
		m.Input = append(m.Input, "image")
	}
	m.ContextWindow = p.numCtx(&m, info)
	return m, slices.Clone(info.capabilities), nil
}

// Window is the context window the server really gives model id, and why, when that is less
// than configured (0: not known): the model's trained length from /api/show, which caps num_ctx,
// or the size the runner of a loaded model reports (/api/ps), which is what the OpenAI-compatible
// endpoint runs it at, since that endpoint cannot set num_ctx. The reason is "" when configured
// holds, or nothing could be learnt.
func (p *Provider) Window(ctx context.Context, id string, configured int) (int, string) {
	info, err := p.info(ctx, id)
	if err != nil {
		return configured, ""
	}
	window, why := configured, ""
	if n := info.contextLength; n > 0 && (window <= 0 || n < window) {
		window, why = n, fmt.Sprintf("the model was trained on %d tokens and Ollama caps it there", n)
	}
	if ps, err := p.client.ListRunning(ctx); err == nil {
		for _, m := range ps.Models {
			if (sameModel(m.Name, id) || sameModel(m.Model, id)) && m.ContextLength > 0 && m.ContextLength < window {
				window, why = m.ContextLength, fmt.Sprintf("Ollama's runner for it holds %d tokens", m.ContextLength)
			}
		}
	}
	return window, why
}

// sameModel reports whether two model names are one: Ollama lists "name:latest" for a model
// asked for as "name".
func sameModel(a, b string) bool {
	withTag := func(s string) string {
		if i := strings.LastIndex(s, "/"); !strings.Contains(s[i+1:], ":") {
			return s + ":latest"
		}
		return s
	}
	return withTag(a) == withTag(b)
}

// ListModels implements provider.ModelLister with /api/tags, described through /api/show (the
// first maxDescribed models; a local server answers each in milliseconds) so a listing can show
// the context each would get and whether it thinks or sees.
func (p *Provider) ListModels(ctx context.Context) ([]provider.Model, error) {
	resp, err := p.client.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing models of Ollama at %s: %s", p.BaseURL(), p.errorText(err))
	}
	models := make([]provider.Model, 0, len(resp.Models))
	for i, m := range resp.Models {
		model := provider.Model{ID: m.Name, API: API, BaseURL: p.BaseURL(), Input: []string{"text"}}
		if i < maxDescribed {
			if d, _, err := p.Describe(ctx, m.Name); err == nil {
				model = d
			}
		}
		models = append(models, model)
	}
	sort.Slice(models, func(i, j int) bool { return models[i].ID < models[j].ID })
	return models, nil
}

// maxDescribed bounds how many models Discover asks /api/show about.
const maxDescribed = 20

// Discover picks a model for a user who configured none: the most recently pulled one whose
// capabilities include tools, else the most recent one. With no server or no models, the error
// says what to do.
func (p *Provider) Discover(ctx context.Context) (provider.Model, error) {
	m, _, err := p.Choose(ctx)
	return m, err
}

// Choose is Discover that also says why it picked the model, for the user who did not name
// one: "the newest of 3 local models that calls tools".
func (p *Provider) Choose(ctx context.Context) (provider.Model, string, error) {
	resp, err := p.client.List(ctx)
	if err != nil {
		return provider.Model{}, "", fmt.Errorf("no Ollama server answered at %s (%s): start one with `ollama serve`, "+
			"set OLLAMA_HOST, or name another provider in pi.toml", p.BaseURL(), p.errorText(err))
	}
	if len(resp.Models) == 0 {
		return provider.Model{}, "", fmt.Errorf("the Ollama server at %s has no models: pull one, e.g. `ollama pull qwen3:1.7b`, "+
			"or name another provider in pi.toml", p.BaseURL())
	}
	if len(resp.Models) == 1 {
		return p.describeChosen(ctx, resp.Models[0].Name, "the only local model")
	}
	of := fmt.Sprintf("the newest of %d local models", len(resp.Models))
	var first *provider.Model
	for i, m := range resp.Models {
		if i == maxDescribed {
			break
		}
		model, caps, err := p.Describe(ctx, m.Name)
		if err != nil {
			continue
		}
		if slices.Contains(caps, "tools") {
			return model, of + " that calls tools", nil
		}
		if first == nil {
			first = &model
		}
	}
	if first != nil {
		return *first, of + "; none calls tools", nil
	}
	return p.describeChosen(ctx, resp.Models[0].Name, of)
}

func (p *Provider) describeChosen(ctx context.Context, id, why string) (provider.Model, string, error) {
	model, _, err := p.Describe(ctx, id)
	return model, why, err
}
