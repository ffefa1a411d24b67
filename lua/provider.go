package lua

import (
	"context"
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
)

// Providers scripts register with pi.register_provider (as pi's registerProvider): an
// existing kind whose configuration the script computed (base_url, headers, a key, models, or
// a models function that asks a server), or a kind of the script's own whose stream function
// makes each call on pi.http and hands back what the model says (luastream.go).

// providerState is one state's providers, by name, in registration order.
type providerState struct {
	defs []providerReg
}

// providerReg is one pi.register_provider call.
type providerReg struct {
	def            provider.Definition // without Stream and ListModels, which publish adds
	stream, models *lua.LFunction
}

// luaModel is a model as scripts describe it.
type luaModel struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	ContextWindow int      `json:"context_window"`
	MaxTokens     int      `json:"max_tokens"`
	Cost          struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cache_read"`
		CacheWrite float64 `json:"cache_write"`
	} `json:"cost"`
}

// providerFuncs are pi.register_provider and pi.unregister_provider.
func providerFuncs(v *vm) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{"register_provider": v.registerProvider, "unregister_provider": v.unregisterProvider}
}

// registerProvider is pi.register_provider(name, {api?, base_url?, api_key?, api_key_env?,
// headers?, models? (a list or a function returning one), stream?}). A name registered again
// replaces the earlier registration.
func (v *vm) registerProvider(L *lua.LState) int {
	name, def := L.CheckString(1), L.CheckTable(2)
	if !isToolName(name) {
		L.ArgError(1, fmt.Sprintf("provider name %q: use letters, digits, _ and -", name))
	}
	reg := providerReg{def: provider.Definition{Name: name, Kind: optString(L, def, "api"), BaseURL: optString(L, def, "base_url"),
		APIKey: optString(L, def, "api_key"), APIKeyEnv: optString(L, def, "api_key_env")}, stream: optFunction(L, def, "stream")}
	switch reg.def.Kind {
	case "ollama", "openai", "anthropic":
	case "":
		if reg.stream != nil {
			reg.def.Kind = "lua"
		}
	default:
		if reg.stream == nil {
			L.ArgError(2, fmt.Sprintf("api %q: pi speaks ollama, openai and anthropic; give stream for another", reg.def.Kind))
		}
	}
	if h, ok := def.RawGetString("headers").(*lua.LTable); ok {
		reg.def.Headers = map[string]string{}
		h.ForEach(func(k, val lua.LValue) { reg.def.Headers[k.String()] = val.String() })
	}
	switch ms := def.RawGetString("models").(type) {
	case *lua.LFunction:
		reg.models = ms
	case *lua.LTable:
		models, err := v.modelsFromLua(ms, &reg.def)
		if err != nil {
			L.ArgError(2, err.Error())
		}
		reg.def.Models = models
	case *lua.LNilType:
	default:
		L.ArgError(2, fmt.Sprintf("models: want a list or a function, got %s", ms.Type()))
	}
	if reg.stream != nil && reg.models == nil && len(reg.def.Models) == 0 {
		L.ArgError(2, "a provider with its own stream needs models")
	}
	v.provs.defs = slices.DeleteFunc(v.provs.defs, func(p providerReg) bool { return p.def.Name == name })
	v.provs.defs = append(v.provs.defs, reg)
	v.r.publish(v)
	return 0
}

func (v *vm) unregisterProvider(L *lua.LState) int {
	name := L.CheckString(1)
	v.provs.defs = slices.DeleteFunc(v.provs.defs, func(p providerReg) bool { return p.def.Name == name })
	v.r.publish(v)
	return 0
}

// modelsFromLua reads a list of models; each gets its provider's name, API and base URL.
func (v *vm) modelsFromLua(t *lua.LTable, def *provider.Definition) ([]provider.Model, error) {
	var out []provider.Model
	for i := 1; i <= t.Len(); i++ {
		var lm luaModel
		if err := v.fromLuaInto(t.RawGetInt(i), &lm); err != nil {
			return nil, fmt.Errorf("models[%d]: %w", i, err)
		}
		if lm.ID == "" {
			return nil, fmt.Errorf("models[%d]: id is missing", i)
		}
		if len(lm.Input) == 0 {
			lm.Input = []string{"text"}
		}
		out = append(out, provider.Model{ID: lm.ID, Name: lm.Name, Provider: def.Name, API: def.Kind, BaseURL: def.BaseURL,
			Reasoning: lm.Reasoning, Input: lm.Input, ContextWindow: lm.ContextWindow,
			MaxTokens: lm.MaxTokens, Cost: provider.ModelCost{Input: lm.Cost.Input, Output: lm.Cost.Output,
				CacheRead: lm.Cost.CacheRead, CacheWrite: lm.Cost.CacheWrite}})
	}
	return out, nil
}

// definitions are the providers as the host sees them (publish, on the owner goroutine).
func (s *providerState) definitions(r *Runtime) []provider.Definition {
	out := make([]provider.Definition, 0, len(s.defs))
	for _, reg := range s.defs {
		d := reg.def
		if reg.stream != nil {
			d.Stream = &luaProvider{r: r, name: d.Name}
		}
		if reg.models != nil {
			d.ListModels = func(ctx context.Context) ([]provider.Model, error) { return r.computeModels(ctx, reg.def) }
		}
		out = append(out, d)
	}
	return out
}

// Providers returns the providers scripts registered, in registration order. Like Tools, the
// list changes when a script registers one later and on Reload; unlike Tools, it does not
// wait for the scripts to load (a script may switch to its own provider while it loads): ask
// after Ready for the whole list.
func (r *Runtime) Providers() []provider.Definition {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.providers)
}

// computeModels calls a provider's models function (which may use pi.http) and reads its list.
func (r *Runtime) computeModels(ctx context.Context, def provider.Definition) ([]provider.Model, error) {
	var models []provider.Model
	var failed error
	started := false
	tk := newTask(ctx, r.opts.HookTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if !started {
			started = true
			i := slices.IndexFunc(v.provs.defs, func(p providerReg) bool { return p.def.Name == def.Name })
			if i < 0 || v.provs.defs[i].models == nil {
				failed = fmt.Errorf("provider %q no longer computes its models", def.Name)
				return nil
			}
			return &call{fn: v.provs.defs[i].models}
		}
		t, ok := first(rets).(*lua.LTable)
		switch {
		case err != nil:
			failed = fmt.Errorf("its models function failed: %s", cleanError(err))
		case !ok:
			failed = fmt.Errorf("its models function returned %s, not a list", first(rets).Type())
		default:
			models, failed = v.modelsFromLua(t, &def)
		}
		return nil
	})
	if err := r.submit(ctx, tk); err != nil {
		return nil, err
	}
	return models, failed
}
