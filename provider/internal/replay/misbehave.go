package replay

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/provider"
)

// Chunks are the pieces of one wire format that the misbehaving servers send.
type Chunks struct {
	Path          string            // the stream's path, e.g. "/api/chat"
	Others        map[string]string // other paths, answered from recorded responses as Serve's
	Empty         string            // a chunk without content: a role delta, message_start
	Text          string            // a chunk carrying the text delta "a"
	End           string            // the chunks that end the reply
	KeepAlive     string            // what the format's servers send to keep a connection open
	KeepAliveSays string            // how the timeout error names it: "keep-alive comments"
}

// Behaviour is what a misbehaving server does with each stream request: nothing at all (not
// even headers), or the headers, First, then Repeat every Every (0: as fast as it can) Count
// times (0: for ever), then End.
type Behaviour struct {
	NoHeaders     bool
	First, Repeat string
	Every         time.Duration
	Count         int
	End           string
}

// Misbehaving is a model server that answers its stream path with a Behaviour.
type Misbehaving struct {
	*httptest.Server
	mu      sync.Mutex
	streams int
	done    chan struct{}
}

// Misbehave starts a server on 127.0.0.1 that answers c.Path as b says and c.Others from
// their recordings.
func Misbehave(t testing.TB, c Chunks, b Behaviour) *Misbehaving {
	t.Helper()
	m := &Misbehaving{done: make(chan struct{})}
	mux := http.NewServeMux()
	for path, file := range c.Others {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { answer(w, r, file) })
	}
	mux.HandleFunc(c.Path, func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.streams++
		m.mu.Unlock()
		m.behave(w, r, b)
	})
	m.Server = httptest.NewServer(mux)
	t.Cleanup(m.Close)
	t.Cleanup(func() { close(m.done) }) // runs first: frees handlers still waiting
	return m
}

// Streams is the number of stream requests received so far.
func (m *Misbehaving) Streams() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.streams
}

func (m *Misbehaving) behave(w http.ResponseWriter, r *http.Request, b Behaviour) {
	ctx := r.Context()
	if b.NoHeaders {
		m.wait(ctx, -1)
		return
	}
	flush := func(s string) bool {
		_, err := fmt.Fprint(w, s)
		w.(http.Flusher).Flush()
		return err == nil && ctx.Err() == nil
	}
	w.WriteHeader(http.StatusOK)
	if !flush(b.First) {
		return
	}
	for i := 0; b.Repeat != "" && (b.Count == 0 || i < b.Count); i++ {
		if !m.wait(ctx, b.Every) {
			return
		}
		s := b.Repeat
		if b.Every == 0 {
			s = strings.Repeat(s, 64)
		}
		if !flush(s) {
			return
		}
	}
	if b.End == "" {
		m.wait(ctx, -1)
		return
	}
	flush(b.End)
}

// wait sleeps for d (negative: until the client or the test goes) and reports whether to go on.
func (m *Misbehaving) wait(ctx context.Context, d time.Duration) bool {
	var after <-chan time.Time
	if d >= 0 {
		after = time.After(d)
	}
	select {
	case <-after:
		return true
	case <-ctx.Done():
	case <-m.done:
	}
	return false
}

// Misbehaviour is one case of CheckMisbehaviours.
type Misbehaviour struct {
	Name string
	Behaviour
	Want     string // the error after "timed out: <server> " or "stream overran: <server> "; "" for success
	Overrun  bool
	Attempts int    // stream requests when one retry is allowed
	Text     string // what the reply's text starts with
}

// Timeouts for CheckMisbehaviours: the first byte and the idle timeout differ, so the errors
// show which one fired, and are far enough apart (and from the servers' pace) that a machine
// busy with a -race run of every package does not blur them.
const (
	FirstByte = 2 * time.Second
	Idle      = 800 * time.Millisecond
)

// Misbehaviours are the ways a server can keep a reply waiting, or never end it, in c's format,
// and the controls that must still succeed.
func Misbehaviours(c Chunks) []Misbehaviour {
	steady := Behaviour{First: c.Empty, Repeat: c.Text, Every: Idle / 4, Count: 4, End: c.End}
	late := Behaviour{Repeat: c.Text, Every: (FirstByte + Idle) / 2, Count: 1, End: c.End}
	return []Misbehaviour{
		{Name: "headers never sent", Behaviour: Behaviour{NoHeaders: true}, Want: fmt.Sprintf("sent no response headers within %v", FirstByte), Attempts: 2},
		{Name: "headers then nothing", Want: fmt.Sprintf("sent response headers but no data within %v", FirstByte), Attempts: 2},
		{Name: "silent after a chunk without content", Behaviour: Behaviour{First: c.Empty},
			Want: fmt.Sprintf("went silent for %v after %d bytes", Idle, len(c.Empty)), Attempts: 2},
		{Name: "silent after text", Behaviour: Behaviour{First: c.Empty + c.Text},
			Want: fmt.Sprintf("went silent for %v after %d bytes", Idle, len(c.Empty+c.Text)), Attempts: 1, Text: "a"},
		{Name: "keep-alives only", Behaviour: Behaviour{Repeat: c.KeepAlive, Every: 20 * time.Millisecond},
			Want: fmt.Sprintf("sent only %s for %v", c.KeepAliveSays, FirstByte), Attempts: 2},
		{Name: "keep-alives after a chunk", Behaviour: Behaviour{First: c.Empty, Repeat: c.KeepAlive, Every: 20 * time.Millisecond},
			Want: fmt.Sprintf("sent only %s for %v after", c.KeepAliveSays, Idle), Attempts: 2},
		{Name: "endless text", Behaviour: Behaviour{First: c.Empty, Repeat: c.Text}, Overrun: true, Attempts: 1, Text: "aaaa",
			Want: "without ending the reply, more than 100 output tokens can take"},
		{Name: "endless empty chunks", Behaviour: Behaviour{Repeat: c.Empty}, Overrun: true, Attempts: 2,
			Want: "without ending the reply, more than 100 output tokens can take"},
		{Name: "slow but steady", Behaviour: steady, Attempts: 1, Text: "aaaa"},
		{Name: "first data late, within the first byte timeout", Behaviour: late, Attempts: 1, Text: "a"},
	}
}

// CheckMisbehaviours runs every Misbehaviour against a provider that newProvider builds for a
// server's URL with the given timeouts, retried once: each must end within a small bound, with
// its error naming the server, and be retried exactly when nothing had been shown.
func CheckMisbehaviours(t *testing.T, c Chunks, model provider.Model,
	newProvider func(t testing.TB, url string, timeouts provider.StreamTimeouts) provider.Provider) {
	for _, tt := range Misbehaviours(c) {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			srv := Misbehave(t, c, tt.Behaviour)
			p := &provider.Retrying{Provider: newProvider(t, srv.URL, provider.StreamTimeouts{FirstByte: FirstByte, Idle: Idle}),
				Policy: provider.RetryPolicy{MaxRetries: 1}, Sleep: func(context.Context, time.Duration) error { return nil }}
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard(&tt))
			defer cancel()
			start := time.Now()
			msg := p.Stream(ctx, &provider.Request{Model: model, Options: provider.Options{MaxTokens: 100},
				Messages: []provider.Message{provider.UserText("hi", 1)}}, func(provider.Event) {})
			took := time.Since(start)
			checkMisbehaviour(t, &tt, srv, &msg, took)
		})
	}
}

// hangGuard is how long a case may run before the test gives up on it: a broken feature hangs.
// Pushing a whole output budget through (megabytes of chunks, under -race) takes what a
// loaded machine takes, so an overrun's guard is generous; its time is not asserted, only
// its cause (the error says the budget was spent).
func hangGuard(tt *Misbehaviour) time.Duration {
	if tt.Overrun {
		return 3 * time.Minute
	}
	return 20 * time.Second
}

func checkMisbehaviour(t *testing.T, tt *Misbehaviour, srv *Misbehaving, msg *provider.Message, took time.Duration) {
	t.Helper()
	// A timeout must fire on time: that is the feature. An overrun ends when the budget is
	// spent, however long the machine takes to read it.
	if limit := time.Duration(tt.Attempts)*(FirstByte+Idle) + 2*time.Second; !tt.Overrun && took > limit {
		t.Errorf("took %v, want under %v", took, limit)
	}
	if got := srv.Streams(); got != tt.Attempts {
		t.Errorf("%d stream requests, want %d", got, tt.Attempts)
	}
	if !strings.HasPrefix(msg.TextContent(), tt.Text) {
		t.Errorf("text %.40q…, want it to start with %q", msg.TextContent(), tt.Text)
	}
	if tt.Want == "" {
		if msg.StopReason == provider.StopError || msg.StopReason == provider.StopAborted {
			t.Errorf("failed: %s %q", msg.StopReason, msg.ErrorMessage)
		}
		return
	}
	prefix := "timed out: " + srv.URL
	if tt.Overrun {
		prefix = "stream overran: " + srv.URL
	}
	if msg.StopReason != provider.StopError || !strings.HasPrefix(msg.ErrorMessage, prefix) || !strings.Contains(msg.ErrorMessage, tt.Want) {
		t.Errorf("got %s %q, want an error starting %q and saying %q", msg.StopReason, msg.ErrorMessage, prefix, tt.Want)
	}
}
