package lua

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"pi/provider"
)

// HookProvider wraps p so that the scripts' before_provider_request handlers see (and may
// replace) the JSON body of each HTTP call and after_provider_response handlers see the
// answer's status and headers. runtime returns the scripts' runtime, or nil before it exists.
func HookProvider(p provider.Provider, runtime func() *Runtime) provider.Provider {
	return &hookedProvider{p: p, runtime: runtime}
}

type hookedProvider struct {
	p       provider.Provider
	runtime func() *Runtime
}

func (h *hookedProvider) Stream(ctx context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	return h.p.Stream(h.hooked(ctx), req, emit)
}

// WouldEvict passes the question on: it sends no request the scripts could change.
func (h *hookedProvider) WouldEvict(ctx context.Context, m provider.Model) (bool, error) {
	return provider.WouldEvict(ctx, h.p, m)
}

// ConstrainedArguments passes a retry of a call's arguments on, with the same hooks as a reply.
func (h *hookedProvider) ConstrainedArguments(ctx context.Context, ar *provider.ArgumentsRequest) (provider.ArgumentsReply, error) {
	return provider.ConstrainedArguments(h.hooked(ctx), h.p, ar)
}

func (h *hookedProvider) hooked(ctx context.Context) context.Context {
	if r := h.runtime(); r != nil && (r.HasHandlers("before_provider_request") || r.HasHandlers("after_provider_response")) {
		ctx = provider.WithRequestHooks(ctx, provider.RequestHooks{BeforeRequest: r.beforeProviderRequest, AfterResponse: r.afterProviderResponse})
	}
	return ctx
}

// beforeProviderRequest runs the before_provider_request handlers: ev = {payload}, the body
// as a table. A handler that returns a table replaces the payload (the next one sees it); the
// body is sent as it came when none did.
func (r *Runtime) beforeProviderRequest(ctx context.Context, body []byte) []byte {
	var payload any
	if !r.HasHandlers("before_provider_request") || json.Unmarshal(body, &payload) != nil {
		return body
	}
	out := body
	var ev *lua.LTable
	r.chain(ctx, "before_provider_request", false, func(v *vm) []lua.LValue {
		ev = v.L.NewTable()
		ev.RawSetString("payload", v.toLua(payload))
		return []lua.LValue{ev}
	}, func(v *vm, ret lua.LValue, h handler) bool {
		t, ok := ret.(*lua.LTable)
		if !ok {
			return false
		}
		x, err := v.fromLua(t)
		if err == nil {
			var b []byte
			if b, err = json.Marshal(x); err == nil {
				out = b
				ev.RawSetString("payload", t)
				return false
			}
		}
		v.r.notify("error", "lua: before_provider_request handler (%s) returned a payload that is not JSON: %v", h.script, err)
		return false
	}, nil, nil)
	return out
}

// afterProviderResponse tells the after_provider_response handlers {status, headers} (header
// names in lower case).
func (r *Runtime) afterProviderResponse(ctx context.Context, status int, header http.Header) {
	headers := map[string]any{}
	for k, vs := range header {
		headers[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	r.Emit(ctx, "after_provider_response", map[string]any{"status": status, "headers": headers})
}
