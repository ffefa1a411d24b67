package live

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pi/provider"
	"pi/session"
)

// localOllama is an Ollama fake whose list of models the test changes as a pull would.
type localOllama struct {
	URL    string
	mu     sync.Mutex
	models []string
}

func startLocalOllama(t *testing.T, models ...string) *localOllama {
	o := &localOllama{models: models}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, _ *http.Request) {
		o.mu.Lock()
		defer o.mu.Unlock()
		list := []map[string]string{}
		for _, m := range o.models {
			list = append(list, map[string]string{"name": m, "model": m})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": list})
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"capabilities":["completion","tools"],"model_info":{"general.architecture":"t","t.context_length":32768}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	o.URL = srv.URL
	return o
}

func (o *localOllama) setModels(models ...string) {
	o.mu.Lock()
	o.models = models
	o.mu.Unlock()
}

// sessionOnLocalOllama is an interactive session whose pi.toml names no model: the built-in
// ollama provider is pointed at srv, and toml is added.
func sessionOnLocalOllama(t *testing.T, url, model, toml string) *Session {
	t.Helper()
	home := t.TempDir()
	toml = "[providers.ollama]\nbase_url = \"" + url + "\"\n" + toml
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{PiHome: home, Cwd: t.TempDir(), Model: model, Interactive: true,
		NoExtensions: true, Session: session.Choice{InMemory: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// TestPickedModelIsSaid: with no model configured pi says which local model it picked and
// why; a model the command line names is not "picked", nor is one the user switched to.
func TestPickedModelIsSaid(t *testing.T) {
	srv := startLocalOllama(t, "qwen3:0.6b", "llama3:latest", "gemma:2b")
	h := sessionOnLocalOllama(t, srv.URL, "", "")
	want := "no model configured; using ollama/qwen3:0.6b (the newest of 3 local models that calls tools; set model in pi.toml)"
	if got := h.PickedModel(); got != want {
		t.Fatalf("picked: %q\nwant    %q", got, want)
	}
	if _, err := h.SetModel(context.Background(), "ollama/gemma:2b"); err != nil {
		t.Fatal(err)
	}
	if got := h.PickedModel(); got != "" {
		t.Errorf("after /model the picked note still shows: %q", got)
	}
	if got := sessionOnLocalOllama(t, srv.URL, "ollama/llama3", "").PickedModel(); got != "" {
		t.Errorf("--model named the model, yet: %q", got)
	}
}

// TestModelPickerListsEachModelOnce: the model in use, asked for as "name", is the server's
// "name:latest" (one row, not two), and a session with no usable model offers no "none/none".
func TestModelPickerListsEachModelOnce(t *testing.T) {
	srv := startLocalOllama(t, "llama3:latest", "qwen3:0.6b")
	labels := func(models []provider.Model) []string {
		var out []string
		for _, m := range models {
			if m.Provider == "ollama" || m.Provider == "none" { // other local servers may answer on this machine
				out = append(out, m.Label())
			}
		}
		return out
	}
	h := sessionOnLocalOllama(t, srv.URL, "ollama/llama3", "")
	if got := strings.Join(labels(h.AvailableModels(context.Background())), ","); got != "ollama/llama3:latest,ollama/qwen3:0.6b" {
		t.Errorf("picker rows %s, want each model once", got)
	}
	empty := startLocalOllama(t)
	h = sessionOnLocalOllama(t, empty.URL, "", "")
	if h.ModelProblem() == "" {
		t.Fatal("a server without models gave a model")
	}
	if got := labels(h.AvailableModels(context.Background())); len(got) != 0 {
		t.Errorf("picker rows %v with no model, want none", got)
	}
}

// TestResolveModelAgainAfterAPull: a session that started without a model (the server had
// none) gets the one pulled since, and says it picked it.
func TestResolveModelAgainAfterAPull(t *testing.T) {
	srv := startLocalOllama(t)
	h := sessionOnLocalOllama(t, srv.URL, "", "")
	if !strings.Contains(h.ModelProblem(), "has no models") {
		t.Fatalf("problem %q", h.ModelProblem())
	}
	if _, err := h.ResolveModelAgain(context.Background()); err == nil || !strings.Contains(h.ModelProblem(), "has no models") {
		t.Fatalf("nothing pulled yet: %v, problem %q", err, h.ModelProblem())
	}
	srv.setModels("qwen3:4b")
	m, err := h.ResolveModelAgain(context.Background())
	if err != nil || m.Label() != "ollama/qwen3:4b" || h.Agent().Model().Label() != "ollama/qwen3:4b" || h.ModelProblem() != "" {
		t.Fatalf("after the pull: %v, %v, agent on %s, problem %q", m.Label(), err, h.Agent().Model().Label(), h.ModelProblem())
	}
	if got := h.PickedModel(); !strings.Contains(got, "using ollama/qwen3:4b (the only local model;") {
		t.Errorf("picked: %q", got)
	}
}
