package ollama

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/internal/replay"
)

var update = flag.Bool("update", false, "rewrite golden files")

const fixtures = "../../testdata/ollama"

func fixture(name string) string { return filepath.Join(fixtures, name) }

func testModel() provider.Model {
	return provider.Model{ID: "qwen3:1.7b", Provider: "ollama", API: API, Input: []string{"text"}}
}

func newProvider(t *testing.T, url string) *Provider {
	t.Helper()
	p, err := New(Config{BaseURL: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStreamFixtures(t *testing.T) {
	for _, tt := range replay.Scenarios() {
		t.Run(tt.Name, func(t *testing.T) {
			srv := replay.Serve(t, fixture("show_qwen3.json.http"), fixture(tt.Name+".ndjson"))
			evs, msg := replay.Run(t, newProvider(t, srv.URL), &provider.Request{Model: testModel(),
				Messages: []provider.Message{provider.UserText("hi", 1)}})
			if msg.StopReason != tt.Stop {
				t.Errorf("stop reason %s (%s), want %s", msg.StopReason, msg.ErrorMessage, tt.Stop)
			}
			if got := srv.Paths(); !reflect.DeepEqual(got, []string{"/api/show", "/api/chat"}) {
				t.Errorf("paths %v", got)
			}
			if err := replay.CheckEvents(evs); err != nil {
				t.Error(err)
			}
			replay.Golden(t, fixture(tt.Name+".golden"), replay.Transcript(evs, msg), *update)
		})
	}
}

func TestClassification(t *testing.T) {
	for name, want := range map[string][2]bool{"rate_limited": {true, false}, "overflow": {false, true}, "error_midstream": {true, false}} {
		srv := replay.Serve(t, fixture("show_qwen3.json.http"), fixture(name+".ndjson"))
		_, msg := replay.Run(t, newProvider(t, srv.URL), &provider.Request{Model: testModel()})
		if got := [2]bool{provider.IsRetryable(&msg), provider.IsContextOverflow(&msg)}; got != want {
			t.Errorf("%s (%q): retryable, overflow = %v, want %v", name, msg.ErrorMessage, got, want)
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	srv := replay.Serve(t, fixture("show_qwen3.json.http"), fixture("rate_limited.ndjson"), fixture("text.ndjson"))
	var waits []time.Duration
	p := &provider.Retrying{Provider: newProvider(t, srv.URL), Policy: provider.DefaultRetryPolicy(),
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	evs, msg := replay.Run(t, p, &provider.Request{Model: testModel(), Messages: []provider.Message{provider.UserText("hi", 1)}})
	if !reflect.DeepEqual(waits, []time.Duration{3 * time.Second}) {
		t.Errorf("waits %v", waits)
	}
	// /api/show is asked once and cached across attempts.
	if got := srv.Paths(); !reflect.DeepEqual(got, []string{"/api/show", "/api/chat", "/api/chat"}) {
		t.Errorf("paths %v", got)
	}
	replay.Golden(t, fixture("text.golden"), replay.Transcript(evs, msg), false)
}

func TestModelNotFound(t *testing.T) {
	srv := replay.Serve(t, fixture("not_found.json.http"))
	_, msg := replay.Run(t, newProvider(t, srv.URL), &provider.Request{Model: testModel()})
	if msg.StopReason != provider.StopError || !strings.Contains(msg.ErrorMessage, "not found") || provider.IsRetryable(&msg) {
		t.Errorf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestAbortMidStream(t *testing.T) {
	show := mustRead(t, fixture("show_qwen3.json.http"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/show" {
			w.Write(show[bytes.Index(show, []byte("\n\n"))+2:])
			return
		}
		io.WriteString(w, `{"message":{"role":"assistant","content":"Hel"},"done":false}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	replay.CheckAbort(t, newProvider(t, srv.URL), testModel(), "Hel")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
