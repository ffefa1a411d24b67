package live

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"pi/internal/chattest"
	"pi/internal/testwait"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// warmSession is a session on model m1 of an Ollama fake at 127.0.0.1, with pi.toml's extra
// provider settings and the warm cache as prewarm says.
func warmSession(t *testing.T, srv *chattest.Server, providerTOML string, prewarm bool) *Session {
	t.Helper()
	home := t.TempDir()
	toml := "[providers.local]\nkind = \"ollama\"\nbase_url = \"" + srv.URL + "\"\n" + providerTOML
	if err := os.WriteFile(filepath.Join(home, "pi.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{PiHome: home, Cwd: t.TempDir(), Model: "local/m1", Prewarm: prewarm,
		NoExtensions: true, Session: session.Choice{InMemory: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

func numPredict(body map[string]any) any {
	opts, _ := body["options"].(map[string]any)
	return opts["num_predict"]
}

// The first request a session would send is sent ahead, with one token to generate, to a
// server on this machine; the real one then starts with the same system prompt and tools.
// Nothing is sent ahead without Prewarm, with prewarm = false, or when /api/ps shows another
// model loaded (loading this one could push it out).
func TestPrewarmSendsTheNextRequestsPrefix(t *testing.T) {
	cases := []struct {
		name         string
		providerTOML string
		prewarm      bool
		running      []string
		wantWarm     bool
	}{
		{"a local server", "", true, nil, true},
		{"the model already loaded", "", true, []string{"m1"}, true},
		{"not asked", "", false, nil, false},
		{"prewarm = false", "prewarm = false\n", true, nil, false},
		{"another model loaded", "", true, []string{"big-model:70b"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := chattest.Start(t, []string{"m1"}, chattest.Reply{Lines: []string{chattest.Done("", 900, 1)}},
				chattest.Reply{Lines: []string{chattest.Done("hello", 5, 1)}})
			srv.SetRunning(tc.running...)
			h := warmSession(t, srv, tc.providerTOML, tc.prewarm)
			if tc.wantWarm {
				testwait.Until(t, "the warm-up request", func() bool { return len(srv.Bodies()) == 1 })
			}
			h.waitWarm(context.Background())
			if err := h.Send(context.Background(), Input{Text: "hi", Source: SourceRPC}); err != nil {
				t.Fatal(err)
			}
			bodies := srv.Bodies()
			if want := map[bool]int{true: 2, false: 1}[tc.wantWarm]; len(bodies) != want {
				t.Fatalf("%d requests, want %d", len(bodies), want)
			}
			if !tc.wantWarm {
				return
			}
			warm, real := bodies[0], bodies[1]
			if numPredict(warm) != float64(1) || numPredict(real) == float64(1) {
				t.Errorf("num_predict %v then %v: want 1 for the warm-up only", numPredict(warm), numPredict(real))
			}
			wm, _ := warm["messages"].([]any)
			rm, _ := real["messages"].([]any)
			if len(wm) == 0 || len(rm) <= len(wm) || !reflect.DeepEqual(wm, rm[:len(wm)]) || !reflect.DeepEqual(warm["tools"], real["tools"]) {
				t.Errorf("the real request does not start with the warm-up's messages and tools:\n%v\n%v", wm, rm)
			}
		})
	}
}

// A prompt sent while the warm-up runs waits for it to end, so the server re-uses what it
// evaluated instead of throwing it away.
func TestPromptFollowsTheWarmUp(t *testing.T) {
	hold := make(chan struct{})
	var released atomic.Bool
	p := faux.New(faux.Reply(func(*provider.Request) provider.Message {
		<-hold
		released.Store(true)
		return faux.Text("")
	}), faux.Reply(func(*provider.Request) provider.Message {
		if !released.Load() {
			return faux.Error("the prompt went out while the warm-up was still running")
		}
		return faux.Text("hello")
	}))
	h, err := New(context.Background(), Options{PiHome: t.TempDir(), Cwd: t.TempDir(), Provider: p, Prewarm: true,
		ProviderModel: provider.Model{ID: "m1", Provider: "faux", API: "faux", Prewarm: true}, Session: session.Choice{InMemory: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	testwait.Until(t, "the warm-up", func() bool { return p.Calls() == 1 })
	sent := make(chan error, 1)
	go func() { sent <- h.Send(context.Background(), Input{Text: "hi", Source: SourceRPC}) }()
	if testwait.Within(2*time.Second, func() bool { return p.Calls() == 2 }) {
		t.Fatal("the prompt's request went out while the warm-up was held")
	}
	close(hold)
	if err := testwait.Receive(t, "the prompt's run", sent); err != nil {
		t.Fatal(err)
	}
	if last := provider.LastAssistant(h.Agent().MessagesView()); last == nil || last.TextContent() != "hello" {
		t.Errorf("the reply: %+v", last)
	}
}

// Once a warm-up has filled the server's cache, the next request has nothing of the prefix
// left to evaluate; without one it has all of it.
func TestWarmUpEmptiesTheNextRequest(t *testing.T) {
	for _, prewarm := range []bool{true, false} {
		srv := chattest.Start(t, []string{"m1"}, chattest.Reply{Lines: []string{chattest.Done("", 900, 1)}})
		h := warmSession(t, srv, "", prewarm)
		if prewarm {
			testwait.Until(t, "the warm-up request", func() bool { return len(srv.Bodies()) == 1 })
		}
		h.waitWarm(context.Background())
		if got := h.NextRequest().Reprocess; (got == 0) != prewarm {
			t.Errorf("prewarm %v: %d tokens to evaluate", prewarm, got)
		}
	}
}
