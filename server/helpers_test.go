package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pi/agent"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
)

// fakeRuntime is a live session around a real agent and a scripted model, without the rest
// of a harness.
type fakeRuntime struct {
	ag     *agent.Agent
	info   Info
	closed atomic.Bool
}

func (f *fakeRuntime) Agent() *agent.Agent { return f.ag }
func (f *fakeRuntime) Info() Info          { return f.info }
func (f *fakeRuntime) Prompt(ctx context.Context, text string) error {
	return f.ag.Prompt(ctx, provider.UserText(text, time.Now().UnixMilli()))
}
func (f *fakeRuntime) Steer(_ context.Context, text string) error {
	f.ag.Steer(provider.UserText(text, time.Now().UnixMilli()))
	f.ag.Emit(agent.Event{Type: "queue_update"})
	return nil
}
func (f *fakeRuntime) Abort() { f.ag.Abort() }
func (f *fakeRuntime) SetModel(_ context.Context, p, id string) error {
	f.ag.SetModel(provider.Model{Provider: p, ID: id})
	return nil
}
func (f *fakeRuntime) SetThinking(level string) error { f.ag.SetThinking(level); return nil }
func (f *fakeRuntime) Close()                         { f.ag.Abort(); f.ag.WaitIdle(); f.closed.Store(true) }

// harnessKit serves fake runtimes whose model replays script.
type harnessKit struct {
	t       testing.TB
	srv     *Server
	socket  string
	cancel  context.CancelFunc
	done    chan error
	mu      sync.Mutex
	opened  []*fakeRuntime
	provide func() provider.Provider
	history []provider.Message // what each new session starts with
	store   session.Store      // Options.Store, when a test sets one: what open reads ids from
	asked   []OpenRequest      // every open's request
	stopped sync.Once
}

func startServer(t testing.TB, provide func() provider.Provider, tweak func(*Options)) *harnessKit {
	t.Helper()
	dir, err := os.MkdirTemp("", "pis")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	k := &harnessKit{t: t, socket: filepath.Join(dir, "run", "pi.sock"), done: make(chan error, 1), provide: provide}
	opts := Options{Socket: k.socket, PiHome: filepath.Join(dir, "home"), Open: k.open}
	if tweak != nil {
		tweak(&opts)
	}
	k.store = opts.Store
	k.srv = New(opts)
	ln, err := Listen(k.socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	go func() { k.done <- k.srv.ServeListener(ctx, ln) }()
	t.Cleanup(k.stop)
	return k
}

func (k *harnessKit) stop() {
	k.stopped.Do(func() {
		k.cancel()
		select {
		case <-k.done:
		case <-time.After(10 * time.Second):
			k.t.Error("the server did not stop within 10 s")
		}
	})
}

func (k *harnessKit) open(ctx context.Context, req OpenRequest) (Runtime, error) {
	id := newID()
	k.mu.Lock()
	k.asked = append(k.asked, req)
	k.mu.Unlock()
	if req.Path != "" && k.store != nil {
		s, err := k.store.Open(ctx, req.Path)
		if err != nil {
			return nil, err
		}
		id = s.ID()
		s.Close()
	} else if req.Path != "" {
		hd, err := session.ReadHeader(req.Path)
		if err != nil {
			return nil, err
		}
		id = hd.ID
		time.Sleep(20 * time.Millisecond) // as a real open reads the file, so concurrent attaches overlap
	}
	ag := agent.New(agent.Config{Provider: k.provide(), Model: provider.Model{Provider: "faux", ID: "faux-1"}, Thinking: "off"})
	ag.ReplaceMessages(k.history)
	rt := &fakeRuntime{ag: ag, info: Info{ID: id, Cwd: "/work", Created: time.Now().UTC().Format(time.RFC3339Nano)}}
	k.mu.Lock()
	k.opened = append(k.opened, rt)
	k.mu.Unlock()
	return rt, nil
}

func (k *harnessKit) dial() *Client {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, k.socket)
	if err != nil {
		k.t.Fatal(err)
	}
	k.t.Cleanup(func() { c.Close() })
	return c
}

func request(t testing.TB, c *Client, cmd map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Request(ctx, cmd)
	if err != nil {
		t.Fatalf("%v: %v", cmd["command"], err)
	}
	return res
}

// slowReply streams text in many small chunks, slowly enough to act during it.
func slowReply(text string, delay time.Duration) func() provider.Provider {
	return func() provider.Provider {
		p := faux.New(faux.Text(text), faux.Text("second reply"), faux.Text("third reply"))
		p.ChunkDelay, p.ChunkRunes = delay, 4
		return p
	}
}

// sessionEvents collects one session's events until its snapshot shows the phase idle
// after a run went (a turn phase seen, or, for a client whose events were dropped, a reply in
// the transcript), or the timeout.
func sessionEvents(t *testing.T, c *Client, timeout time.Duration) []map[string]any {
	t.Helper()
	var out []map[string]any
	deadline := time.After(timeout)
	sawTurn := false
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatal("connection closed while waiting for the run to end")
			}
			if ev["type"] == "server_snapshot" {
				continue
			}
			out = append(out, ev)
			if ev["type"] == "session_snapshot" {
				phase := ev["snapshot"].(map[string]any)["phase"]
				sawTurn = sawTurn || phase == "turn"
				replied := len(snapshotOfEvent(ev)["transcript"].([]any)) >= 2
				if phase == "idle" && (sawTurn || replied) {
					return out
				}
			}
		case <-deadline:
			t.Fatalf("no idle snapshot within %v (%d events)", timeout, len(out))
		}
	}
}

func snapshotOf(res map[string]any) map[string]any { return res["session"].(map[string]any) }

func transcriptTexts(snap map[string]any) []string {
	var out []string
	for _, it := range snap["transcript"].([]any) {
		item := it.(map[string]any)
		for _, part := range item["content"].([]any) {
			p := part.(map[string]any)
			if p["type"] == "text" {
				out = append(out, fmt.Sprintf("%s:%s", item["role"], p["text"]))
			}
		}
	}
	return out
}

func snapshotOfEvent(ev map[string]any) map[string]any { return ev["snapshot"].(map[string]any) }
