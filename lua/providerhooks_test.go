package lua

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"pi/provider"
)

// wireFake stands for an HTTP provider: it passes its body through the hooks ctx carries.
type wireFake struct{ sent string }

func (f *wireFake) Stream(ctx context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	h := provider.HooksFrom(ctx)
	body := []byte(`{"model":"m","max_tokens":100,"messages":[]}`)
	if h.BeforeRequest != nil {
		body = h.BeforeRequest(ctx, body)
	}
	f.sent = string(body)
	if h.AfterResponse != nil {
		h.AfterResponse(ctx, 200, http.Header{"X-Request-Id": {"r1"}})
	}
	return provider.Message{Role: provider.RoleAssistant}
}

func TestProviderRequestHooks(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"replaced", `pi.on("before_provider_request", function(ev) ev.payload.max_tokens = 50 ev.payload.temperature = 0 return ev.payload end)`,
			`{"max_tokens":50,"messages":[],"model":"m","temperature":0}`},
		{"kept as sent", `pi.on("before_provider_request", function(ev) end)`, `{"model":"m","max_tokens":100,"messages":[]}`},
		{"no handlers", ``, `{"model":"m","max_tokens":100,"messages":[]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.start(t, tc.src+`
pi.on("after_provider_response", function(ev) pi.notify("status " .. ev.status .. " " .. ev.headers["x-request-id"], "info") end)`)
			f := &wireFake{}
			HookProvider(f, func() *Runtime { return r }).Stream(ctxT(t), &provider.Request{}, func(provider.Event) {})
			if f.sent != tc.want {
				t.Fatalf("sent %s, want %s", f.sent, tc.want)
			}
			r.Flush(ctxT(t))
			if _, ok := e.noticeContaining("status 200 r1"); !ok {
				t.Fatalf("after_provider_response not seen: %v", e.notices())
			}
			e.noErrors(t)
		})
	}
	f := &wireFake{}
	HookProvider(f, func() *Runtime { return nil }).Stream(ctxT(t), &provider.Request{}, func(provider.Event) {})
	if !strings.Contains(f.sent, `"max_tokens":100`) {
		t.Fatalf("without a runtime the body changed: %s", f.sent)
	}
}
