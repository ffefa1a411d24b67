package lua

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Bounds of pi.http: a body read whole, and one chunk handed to stream.
const (
	httpMaxBody     = 16 << 20
	httpChunkBytes  = 64 << 10
	httpDefaultWait = 60 // seconds, the whole exchange
)

// httpRequest is what pi.http read from its table, on the owner goroutine.
type httpRequest struct {
	method, url, body string
	headers           map[string]string
	stream            *lua.LFunction
	timeout           float64
}

// httpFn is pi.http{method?, url, headers?, body?, timeout?, stream?} → {status, headers,
// body} or nil and a message. With stream the body goes to stream(chunk) as it arrives (body
// is then ""), each call on the Lua goroutine, the next read waiting for it. The request ends
// with the calling tool or command (an abort), at the timeout, and at /reload.
func (v *vm) httpFn(L *lua.LState) int {
	req := v.readHTTPRequest(L, L.CheckTable(1))
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		ctx, cancel := context.WithTimeout(ctx, secondsDuration(req.timeout))
		defer cancel()
		stopWithState := context.AfterFunc(v.ctx, cancel)
		defer stopWithState()
		status, headers, body, err := v.doHTTP(ctx, req)
		if err != nil {
			return errorResult(fmt.Errorf("pi.http %s %s: %w", req.method, req.url, err))
		}
		return func(L *lua.LState) []lua.LValue {
			t := L.NewTable()
			t.RawSetString("status", lua.LNumber(status))
			h := L.NewTable()
			for k, val := range headers {
				h.RawSetString(k, lua.LString(val))
			}
			t.RawSetString("headers", h)
			t.RawSetString("body", lua.LString(body))
			return []lua.LValue{t}
		}
	})
}

func (v *vm) readHTTPRequest(L *lua.LState, def *lua.LTable) httpRequest {
	req := httpRequest{method: strings.ToUpper(optString(L, def, "method")), url: optString(L, def, "url"),
		body: optString(L, def, "body"), stream: optFunction(L, def, "stream"), headers: map[string]string{}, timeout: httpDefaultWait}
	if req.method == "" {
		req.method = http.MethodGet
	}
	if !strings.HasPrefix(req.url, "http://") && !strings.HasPrefix(req.url, "https://") {
		L.ArgError(1, fmt.Sprintf("url: want http:// or https://, got %q", req.url))
	}
	if n, ok := def.RawGetString("timeout").(lua.LNumber); ok && n > 0 {
		req.timeout = float64(n)
	}
	if h, ok := def.RawGetString("headers").(*lua.LTable); ok {
		h.ForEach(func(k, val lua.LValue) { req.headers[k.String()] = val.String() })
	}
	return req
}

// doHTTP makes the request; headers come back with lower-case names, several values joined
// with ", ".
func (v *vm) doHTTP(ctx context.Context, req httpRequest) (int, map[string]string, string, error) {
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, req.url, body)
	if err != nil {
		return 0, nil, "", err
	}
	names := make([]string, 0, len(req.headers))
	for k := range req.headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		hr.Header.Set(k, req.headers[k])
	}
	resp, err := v.httpClient().Do(hr)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	headers := map[string]string{}
	for k, vals := range resp.Header {
		headers[strings.ToLower(k)] = strings.Join(vals, ", ")
	}
	if req.stream != nil {
		return resp.StatusCode, headers, "", v.streamBody(ctx, resp.Body, req.stream)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, httpMaxBody+1))
	if err == nil && len(data) > httpMaxBody {
		err = fmt.Errorf("the response body is larger than %d MiB; use stream", httpMaxBody>>20)
	}
	return resp.StatusCode, headers, string(data), err
}

// httpClient checks every host a request reaches, the first and each redirect's, against
// the sandbox's rule.
func (v *vm) httpClient() *http.Client {
	allowed := v.r.opts.HTTPAllowed
	if allowed == nil {
		return http.DefaultClient
	}
	check := func(r *http.Request) error { return allowed(r.URL.Hostname()) }
	return &http.Client{
		Transport: &hostCheck{check: check, next: http.DefaultTransport},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return check(r)
		},
	}
}

// hostCheck refuses a request whose host the check does not allow, before any connection.
type hostCheck struct {
	check func(*http.Request) error
	next  http.RoundTripper
}

func (h *hostCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := h.check(r); err != nil {
		return nil, err
	}
	return h.next.RoundTrip(r)
}

// streamBody hands the body to fn chunk by chunk; a failing fn becomes a notice.
func (v *vm) streamBody(ctx context.Context, r io.Reader, fn *lua.LFunction) error {
	buf := make([]byte, httpChunkBytes)
	failed := func(err error) { v.r.notify("error", "lua: pi.http stream callback failed: %s", cleanError(err)) }
	for {
		n, err := r.Read(buf)
		if n > 0 && !v.callback(fn, [][]lua.LValue{{lua.LString(buf[:n])}}, failed, nil) {
			return errors.New("the Lua state was reloaded")
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return err
		}
	}
}

func secondsDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
