package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"pi/provider"
)

// HTTPError is a non-2xx answer from a model server.
type HTTPError struct {
	Status     int
	StatusText string // e.g. "429 Too Many Requests"
	Message    string // the server's own words, taken from its JSON error body when it has one
	RetryAfter time.Duration
}

func (e *HTTPError) Error() string {
	if e.Message == "" {
		return e.StatusText
	}
	return e.StatusText + ": " + e.Message
}

// Post sends body as JSON to target with header and returns the response of a 2xx answer; the
// caller closes its body. The body is also closed as soon as ctx is done, so a reader blocked
// on a silent server returns at once instead of waiting for the transport to notice.
// Any other status becomes an *HTTPError; a transport failure is returned without the URL's
// query, which is where some users put keys.
//
// The request hooks ctx carries (provider.WithRequestHooks) see the body first and may
// replace it, and see the answer's status and headers.
func Post(ctx context.Context, client *http.Client, target string, header http.Header, body []byte) (*http.Response, error) {
	hooks := provider.HooksFrom(ctx)
	if hooks.BeforeRequest != nil {
		body = hooks.BeforeRequest(ctx, body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building request for %s: %w", redactURL(target), err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	if hooks.AfterResponse == nil {
		return do(ctx, client, req)
	}
	resp, err := do(ctx, client, req)
	var herr *HTTPError
	switch {
	case err == nil:
		hooks.AfterResponse(ctx, resp.StatusCode, resp.Header)
	case errors.As(err, &herr):
		hooks.AfterResponse(ctx, herr.Status, nil)
	}
	return resp, err
}

// Get fetches target with header, like Post.
func Get(ctx context.Context, client *http.Client, target string, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("building request for %s: %w", redactURL(target), err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	return do(ctx, client, req)
}

func do(ctx context.Context, client *http.Client, req *http.Request) (*http.Response, error) {
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var serr *StreamError
		if errors.As(err, &serr) { // a timeout of Watch's says itself which server did what
			return nil, serr
		}
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("connection error (%s %s): %w", req.Method, redactURL(req.URL.String()), err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, &HTTPError{
			Status:     resp.StatusCode,
			StatusText: strings.TrimSpace(strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)),
			Message:    ErrorText(data),
			RetryAfter: RetryAfter(resp.Header, time.Now()),
		}
	}
	// The body is captured: a context that ends at once runs the closure while resp.Body is
	// being replaced.
	body := resp.Body
	stop := context.AfterFunc(ctx, func() { body.Close() })
	resp.Body = &closeStopper{ReadCloser: body, stop: stop}
	return resp, nil
}

type closeStopper struct {
	io.ReadCloser
	stop func() bool
}

func (c *closeStopper) Close() error {
	c.stop()
	return c.ReadCloser.Close()
}

// redactURL drops the query and any user info from u.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "<invalid URL>"
	}
	p.RawQuery, p.User, p.Fragment = "", nil, ""
	return p.String()
}

// ErrorText extracts a human message from an error body in any of the shapes servers use:
// {"error":"…"} (Ollama, LM Studio), {"error":{"message":"…","type":"…"}} (OpenAI, llama.cpp,
// vLLM, OpenRouter), {"type":"error","error":{…}} (Anthropic), {"message":"…"} or {"detail":"…"}.
// A body that is not JSON is returned trimmed and cut to a readable length.
func ErrorText(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if err := json.Unmarshal(body, &v); err == nil {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s
		}
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(v.Error, &obj) == nil && (obj.Message != "" || obj.Type != "") {
			switch {
			case obj.Message == "":
				return obj.Type
			case obj.Type != "" && !strings.Contains(obj.Message, obj.Type):
				// The type carries what the message may not say, e.g. "overloaded_error".
				return obj.Type + ": " + obj.Message
			}
			return obj.Message
		}
		if v.Message != "" {
			return v.Message
		}
		if v.Detail != nil {
			if d, err := json.Marshal(v.Detail); err == nil {
				return strings.Trim(string(d), `"`)
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// RetryAfter reads how long the server asks to wait: "retry-after-ms" (OpenAI), then
// "Retry-After" in seconds or as an HTTP date. Zero means the server did not say.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
