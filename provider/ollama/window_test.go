package ollama

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The window of a loaded model is what its runner holds, whether the model was named with its
// tag or without (Ollama lists "name:latest").
func TestWindowOfALoadedModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/show":
			fmt.Fprint(w, `{"capabilities":["completion"],"model_info":{"general.architecture":"llama","llama.context_length":32768}}`)
		case "/api/ps":
			fmt.Fprint(w, `{"models":[{"name":"small:latest","model":"small:latest","context_length":4096},{"name":"hub/big:8b","model":"hub/big:8b","context_length":2048}]}`)
		}
	}))
	defer srv.Close()
	p := newProvider(t, srv.URL)
	for _, tc := range []struct {
		id   string
		want int
		why  string
	}{
		{"small", 4096, "runner for it holds 4096"},
		{"small:latest", 4096, "runner for it holds 4096"},
		{"hub/big:8b", 2048, "runner for it holds 2048"},
		{"other", 32768, "trained on 32768"},
		{"smaller", 32768, "trained on 32768"},
	} {
		n, why := p.Window(context.Background(), tc.id, 0)
		if n != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("%s: window %d (%s), want %d (%s)", tc.id, n, why, tc.want, tc.why)
		}
	}
}

func TestSameModel(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"qwen3", "qwen3:latest", true},
		{"qwen3:1.7b", "qwen3:1.7b", true},
		{"qwen3:1.7b", "qwen3", false},
		{"host:5000/ns/m", "host:5000/ns/m:latest", true},
		{"ns/m:q4", "ns/m:q8", false},
	} {
		if got := sameModel(tc.a, tc.b); got != tc.same {
			t.Errorf("sameModel(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}
