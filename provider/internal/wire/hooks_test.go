package wire

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"pi/provider"
)

// Post passes the body through the request hooks and reports the answer's status, an
// error status too.
func TestPostRequestHooks(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		if r.URL.Path == "/fail" {
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
			return
		}
		w.Header().Set("X-Id", "7")
	}))
	defer srv.Close()
	var statuses []int
	ctx := provider.WithRequestHooks(context.Background(), provider.RequestHooks{
		BeforeRequest: func(_ context.Context, body []byte) []byte { return append(body[:len(body)-1], `,"x":1}`...) },
		AfterResponse: func(_ context.Context, status int, h http.Header) { statuses = append(statuses, status) },
	})
	resp, err := Post(ctx, srv.Client(), srv.URL+"/ok", nil, []byte(`{"a":0}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != `{"a":0,"x":1}` {
		t.Fatalf("server got %s", got)
	}
	if _, err := Post(ctx, srv.Client(), srv.URL+"/fail", nil, []byte(`{}`)); err == nil {
		t.Fatal("429 was not an error")
	}
	if len(statuses) != 2 || statuses[0] != 200 || statuses[1] != 429 {
		t.Fatalf("statuses %v", statuses)
	}
}
