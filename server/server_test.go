package server

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"pi/internal/cbor"
)

func TestHelloListCreatePrompt(t *testing.T) {
	k := startServer(t, slowReply("Hello from the scripted model.", 0), nil)
	c := k.dial()
	if c.Hello["version"] != int64(1) || c.Hello["connectionId"] == "" {
		t.Fatalf("hello: %v", c.Hello)
	}
	snap := c.Hello["snapshot"].(map[string]any)
	if snap["protocolVersion"] != int64(1) || snap["revision"] != int64(0) {
		t.Fatalf("server snapshot: %v", snap)
	}
	if got := request(t, c, map[string]any{"command": "list"}); len(got["sessions"].([]any)) != 0 {
		t.Fatalf("list on an empty server: %v", got)
	}
	created := snapshotOf(request(t, c, map[string]any{"command": "create"}))
	id := created["id"].(string)
	if created["attached"] != true || created["phase"] != "idle" {
		t.Fatalf("create: %v", created)
	}
	res := snapshotOf(request(t, c, map[string]any{"command": "prompt", "sessionId": id, "text": "hi"}))
	if got, want := transcriptTexts(res), []string{"user:hi", "assistant:Hello from the scripted model."}; !reflect.DeepEqual(got, want) {
		t.Fatalf("transcript after the prompt: %q, want %q", got, want)
	}
	if res["phase"] != "idle" || res["revision"].(int64) <= created["revision"].(int64) {
		t.Fatalf("after the prompt: phase %v revision %v (created at %v)", res["phase"], res["revision"], created["revision"])
	}
	list := request(t, c, map[string]any{"command": "list"})["sessions"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("list: %v", list)
	}
}

func TestCommandsNeedAnAttachment(t *testing.T) {
	k := startServer(t, slowReply("x", 0), nil)
	a, b := k.dial(), k.dial()
	id := snapshotOf(request(t, a, map[string]any{"command": "create"}))["id"].(string)
	for _, cmd := range []map[string]any{
		{"command": "prompt", "sessionId": id, "text": "hi"},
		{"command": "abort", "sessionId": id},
		{"command": "set_thinking", "sessionId": id, "thinkingLevel": "high"},
	} {
		_, err := b.Request(context.Background(), cmd)
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != CodeInvalidRequest || !strings.Contains(pe.Message, "not attached") {
			t.Errorf("%v from a connection not attached: %v", cmd["command"], err)
		}
	}
	if res := request(t, b, map[string]any{"command": "detach", "sessionId": "nobody"}); res["sessionId"] != "nobody" {
		t.Errorf("detaching what is not attached: %v", res)
	}
	_, err := b.Request(context.Background(), map[string]any{"command": "attach", "sessionId": "no-such-session"})
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeNotFound {
		t.Errorf("attaching an unknown session: %v", err)
	}
	set := snapshotOf(request(t, a, map[string]any{"command": "set_thinking", "sessionId": id, "thinkingLevel": "high"}))
	if set["thinkingLevel"] != "high" {
		t.Errorf("set_thinking: %v", set["thinkingLevel"])
	}
}

// Both clients attached to one session see the same events, in the same order.
func TestTwoClientsSeeIdenticalStreams(t *testing.T) {
	k := startServer(t, slowReply(strings.Repeat("streamed words ", 20), time.Millisecond), nil)
	a, b := k.dial(), k.dial()
	id := snapshotOf(request(t, a, map[string]any{"command": "create"}))["id"].(string)
	request(t, b, map[string]any{"command": "attach", "sessionId": id})
	drain(a)
	drain(b)
	go a.Request(context.Background(), map[string]any{"command": "prompt", "sessionId": id, "text": "go"})
	evA := sessionEvents(t, a, 20*time.Second)
	evB := sessionEvents(t, b, 20*time.Second)
	if len(evA) < 20 {
		t.Fatalf("only %d events for a streamed reply", len(evA))
	}
	if !reflect.DeepEqual(evA, evB) {
		t.Fatalf("the streams differ: %d and %d events", len(evA), len(evB))
	}
	deltas := 0
	for _, ev := range evA {
		if p, _ := ev["progress"].(map[string]any); p != nil && p["type"] == "assistant_delta" {
			deltas++
		}
	}
	if deltas < 20 {
		t.Errorf("%d assistant deltas", deltas)
	}
}

// drain takes the events already queued (the attach's snapshots).
func drain(c *Client) {
	for {
		select {
		case <-c.Events():
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}

// A client that goes away mid-run does not stop it; one attaching later gets the whole
// transcript.
func TestRunOutlivesItsClient(t *testing.T) {
	k := startServer(t, slowReply(strings.Repeat("long answer ", 30), 2*time.Millisecond), nil)
	a := k.dial()
	id := snapshotOf(request(t, a, map[string]any{"command": "create"}))["id"].(string)
	go a.Request(context.Background(), map[string]any{"command": "prompt", "sessionId": id, "text": "work"})
	waitFor(t, a, "assistant_delta")
	a.Close()
	b := k.dial()
	var snap map[string]any
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		snap = snapshotOf(request(t, b, map[string]any{"command": "attach", "sessionId": id}))
		if snap["phase"] == "idle" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := []string{"user:work", "assistant:" + strings.Repeat("long answer ", 30)}
	if got := transcriptTexts(snap); !reflect.DeepEqual(got, want) {
		t.Fatalf("a late client's transcript: %q", got)
	}
}

func waitFor(t *testing.T, c *Client, progress string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-c.Events():
			if p, _ := ev["progress"].(map[string]any); p != nil && p["type"] == progress {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event within 10 s", progress)
		}
	}
}

// A session nobody is attached to is disposed once idle; a busy one stays until its run ends.
func TestIdleSessionsAreDisposed(t *testing.T) {
	k := startServer(t, slowReply("done", 0), nil)
	a := k.dial()
	id := snapshotOf(request(t, a, map[string]any{"command": "create"}))["id"].(string)
	request(t, a, map[string]any{"command": "detach", "sessionId": id})
	k.mu.Lock()
	rt := k.opened[0]
	k.mu.Unlock()
	if !rt.closed.Load() {
		t.Fatal("an idle session with no client is still open")
	}
	_, err := a.Request(context.Background(), map[string]any{"command": "prompt", "sessionId": id, "text": "x"})
	if err == nil {
		t.Fatal("prompt after detach succeeded")
	}
}

// Many clients on one streaming session: each gets the run's end, and one that reads nothing
// holds nobody up.
func TestHundredClientsOnOneStreamingSession(t *testing.T) {
	k := startServer(t, slowReply(strings.Repeat("chunk ", 400), 0), func(o *Options) { o.MaxQueued = 64 << 10 })
	owner := k.dial()
	id := snapshotOf(request(t, owner, map[string]any{"command": "create"}))["id"].(string)
	stuck := rawHello(t, k.socket) // attaches, then never reads again
	writeRequest(t, stuck, "r1", map[string]any{"command": "attach", "sessionId": id})
	clients := make([]*Client, 100)
	for i := range clients {
		clients[i] = k.dial()
		request(t, clients[i], map[string]any{"command": "attach", "sessionId": id})
	}
	start := time.Now()
	go owner.Request(context.Background(), map[string]any{"command": "prompt", "sessionId": id, "text": "go"})
	var wg sync.WaitGroup
	finals := make([]map[string]any, len(clients))
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			evs := sessionEvents(t, c, 60*time.Second)
			finals[i] = evs[len(evs)-1]["snapshot"].(map[string]any)
		}()
	}
	wg.Wait()
	for i, f := range finals {
		if got := transcriptTexts(f); len(got) != 2 || !strings.HasPrefix(got[1], "assistant:chunk") {
			t.Fatalf("client %d ended with %q", i, got)
		}
	}
	t.Logf("100 clients saw the run end after %v", time.Since(start))
}

// rawHello connects and completes the handshake by hand.
func rawHello(t testing.TB, socket string) net.Conn {
	t.Helper()
	nc, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	writeFrame(t, nc, map[string]any{"type": "hello", "version": 1})
	if m := readFrame(t, nc); m["type"] != "hello" {
		t.Fatalf("hello answered with %v", m)
	}
	return nc
}

func writeFrame(t testing.TB, nc net.Conn, v any) {
	t.Helper()
	b, err := cbor.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(cbor.AppendFrame(nil, b)); err != nil {
		t.Fatal(err)
	}
}

func writeRequest(t testing.TB, nc net.Conn, id string, cmd map[string]any) {
	writeFrame(t, nc, map[string]any{"type": "request", "id": id, "request": cmd})
}

func readFrame(t testing.TB, nc net.Conn) map[string]any {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer nc.SetReadDeadline(time.Time{})
	m, err := readMessage(cbor.NewFrameReader(nc, 0))
	if err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	return m
}

// Misbehaving clients are refused, each on its own connection; a client beside them keeps
// working.
func TestBadClientsAreRefusedAlone(t *testing.T) {
	k := startServer(t, slowReply("fine", 0), func(o *Options) {
		o.MaxFrame = 1 << 10
		o.HandshakeTimeout = 300 * time.Millisecond
	})
	good := k.dial()
	id := snapshotOf(request(t, good, map[string]any{"command": "create"}))["id"].(string)
	hdr := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
	frame := func(v any) []byte { b, _ := cbor.Marshal(v); return cbor.AppendFrame(nil, b) }
	cases := []struct {
		name, code, message string
		send                []byte
	}{
		{"wrong version", CodeVersion, "Unsupported protocol version 2; expected 1", frame(map[string]any{"type": "hello", "version": 2})},
		{"version as a string", CodeInvalidRequest, "Invalid client protocol message", frame(map[string]any{"type": "hello", "version": "1"})},
		{"a v2 token hello", CodeInvalidRequest, "Invalid client protocol message", frame(map[string]any{"type": "hello", "version": 1, "token": "t"})},
		{"oversized frame", CodeInvalidRequest, "frame exceeds the size limit", hdr(1<<10 + 1)},
		{"garbage", CodeInvalidRequest, "Invalid client protocol frame", append(hdr(3), 0xff, 0xfe, 0xfd)},
		{"request before hello", CodeInvalidRequest, "The first client message must be hello",
			frame(map[string]any{"type": "request", "id": "1", "request": map[string]any{"command": "list"}})},
		{"silence", CodeInvalidRequest, "Handshake timeout", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nc, err := net.Dial("unix", k.socket)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.Write(c.send)
			m := readFrame(t, nc)
			e, _ := m["error"].(map[string]any)
			if m["type"] != "hello_error" || e["code"] != c.code || !strings.Contains(e["message"].(string), c.message) {
				t.Fatalf("answer: %v", m)
			}
			if _, err := io.ReadAll(nc); err != nil {
				t.Fatalf("after the hello_error: %v", err)
			}
		})
	}
	after := func(name string, send func(nc net.Conn)) {
		nc := rawHello(t, k.socket)
		send(nc)
		m := readFrame(t, nc)
		if m["type"] != "hello_error" {
			t.Errorf("%s after the handshake: %v", name, m)
		}
	}
	after("a second hello", func(nc net.Conn) { writeFrame(t, nc, map[string]any{"type": "hello", "version": 1}) })
	after("an unknown command", func(nc net.Conn) { writeRequest(t, nc, "x", map[string]any{"command": "delete"}) })
	after("an extra field", func(nc net.Conn) { writeRequest(t, nc, "x", map[string]any{"command": "list", "all": true}) })
	after("an oversized frame", func(nc net.Conn) { nc.Write(hdr(1 << 20)) })
	res := snapshotOf(request(t, good, map[string]any{"command": "prompt", "sessionId": id, "text": "still there?"}))
	if got := transcriptTexts(res); len(got) != 2 || got[1] != "assistant:fine" {
		t.Fatalf("the good client after the bad ones: %q", got)
	}
}

func TestSocketSetup(t *testing.T) {
	dir, _ := os.MkdirTemp("", "pis")
	defer os.RemoveAll(dir)
	path := dir + "/new/pi.sock"
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir + "/new"); fi.Mode().Perm() != 0o700 {
		t.Errorf("socket folder mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket mode %v", fi.Mode())
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("a second server on a live socket: %v", err)
	}
	ln.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after Close: %v", err)
	}
	// A stale socket (nobody listening) is replaced.
	stale, _ := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	stale.SetUnlinkOnClose(false)
	stale.Close()
	ln2, err := Listen(path)
	if err != nil {
		t.Fatalf("replacing a stale socket: %v", err)
	}
	ln2.Close()
	os.WriteFile(path, []byte("not a socket"), 0o600)
	if _, err := Listen(path); err == nil {
		t.Error("a file in the socket's place was replaced")
	}
}

// Stopping the server (SIGTERM cancels its context) aborts the runs, closes the sessions and
// removes the socket.
func TestStopClosesEverything(t *testing.T) {
	k := startServer(t, slowReply(strings.Repeat("never finishes ", 500), 5*time.Millisecond), nil)
	c := k.dial()
	id := snapshotOf(request(t, c, map[string]any{"command": "create"}))["id"].(string)
	go c.Request(context.Background(), map[string]any{"command": "prompt", "sessionId": id, "text": "go"})
	waitFor(t, c, "assistant_delta")
	k.stop()
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.opened[0].closed.Load() {
		t.Error("the session was not closed")
	}
	if _, err := os.Stat(k.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

// A client that stops reading loses the events it could not take, not the session: once it
// reads again it is sent a fresh snapshot, and the revisions it sees only grow.
func TestSlowClientGetsAFreshSnapshot(t *testing.T) {
	const chunks = 6000
	k := startServer(t, slowReply(strings.Repeat("abcd", chunks), 0), func(o *Options) { o.MaxQueued = 16 << 10 })
	owner := k.dial()
	id := snapshotOf(request(t, owner, map[string]any{"command": "create"}))["id"].(string)
	slow := rawHello(t, k.socket)
	writeRequest(t, slow, "a", map[string]any{"command": "attach", "sessionId": id})
	go func() {
		for range owner.Events() {
		}
	}()
	final := snapshotOf(request(t, owner, map[string]any{"command": "prompt", "sessionId": id, "text": "go"}))
	fr := cbor.NewFrameReader(slow, 0)
	deltas, lastRev := 0, int64(-1)
	slow.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		m, err := readMessage(fr)
		if err != nil {
			t.Fatalf("reading after the run (%d deltas): %v", deltas, err)
		}
		ev, _ := m["event"].(map[string]any)
		if p, _ := ev["progress"].(map[string]any); p != nil && p["type"] == "assistant_delta" {
			deltas++
		}
		if ev["type"] != "session_snapshot" {
			continue
		}
		snap := ev["snapshot"].(map[string]any)
		rev := snap["revision"].(int64)
		if rev < lastRev {
			t.Fatalf("revision went back from %d to %d", lastRev, rev)
		}
		lastRev = rev
		if rev == final["revision"].(int64) && reflect.DeepEqual(transcriptTexts(snap), transcriptTexts(final)) {
			break
		}
	}
	if deltas >= chunks {
		t.Fatalf("the slow client got all %d deltas: nothing was dropped, the test proves nothing", deltas)
	}
	t.Logf("the slow client got %d of %d deltas, then the final snapshot", deltas, chunks)
}

// A stored session attached by many clients at once is opened once; they all share it.
func TestConcurrentAttachesOpenOnce(t *testing.T) {
	k := startServer(t, slowReply("x", 0), nil)
	id := "01a2b3c4-0000-7000-8000-000000000001"
	dir := filepath.Join(k.srv.opts.PiHome, "sessions", "--work--")
	os.MkdirAll(dir, 0o700)
	header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/work"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "2026-01-02T03-04-05-000Z_"+id+".jsonl"), []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 10 {
		c := k.dial()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if snap := snapshotOf(request(t, c, map[string]any{"command": "attach", "sessionId": id})); snap["id"] != id {
				t.Errorf("attached to %v", snap["id"])
			}
		}()
	}
	wg.Wait()
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.opened) != 1 {
		t.Fatalf("%d runtimes for one session", len(k.opened))
	}
}

// With a token, only a version-2 hello carrying it gets in; a bad token is refused with
// "auth" and the clients that are in keep working.
func TestTokenHello(t *testing.T) {
	k := startServer(t, slowReply("fine", 0), func(o *Options) { o.Token = "s3cret" })
	ctx := context.Background()
	good, err := DialToken(ctx, k.socket, "s3cret")
	if err != nil {
		t.Fatalf("the right token: %v", err)
	}
	defer good.Close()
	if good.Hello["version"] != int64(2) {
		t.Errorf("hello version %v", good.Hello["version"])
	}
	for _, c := range []struct{ name, token, code string }{
		{"a wrong token", "guess", CodeAuth},
		{"no token", "", CodeInvalidRequest},
	} {
		_, err := DialToken(ctx, k.socket, c.token)
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%s: %v, want code %s", c.name, err, c.code)
		}
	}
	id := snapshotOf(request(t, good, map[string]any{"command": "create"}))["id"].(string)
	if res := snapshotOf(request(t, good, map[string]any{"command": "prompt", "sessionId": id, "text": "x"})); len(transcriptTexts(res)) != 2 {
		t.Errorf("the client with the token after the refusals: %v", transcriptTexts(res))
	}
	plain := startServer(t, slowReply("x", 0), nil)
	_, err = DialToken(ctx, plain.socket, "s3cret")
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeVersion {
		t.Errorf("a token to a server without one: %v", err)
	}
}

// pi_stop with wait lets the run finish before the server stops.
func TestStopWaitsForRuns(t *testing.T) {
	k := startServer(t, slowReply(strings.Repeat("words ", 60), 2*time.Millisecond), nil)
	c := k.dial()
	id := snapshotOf(request(t, c, map[string]any{"command": "create"}))["id"].(string)
	done := make(chan map[string]any, 1)
	go func() {
		res, _ := c.Request(context.Background(), map[string]any{"command": "prompt", "sessionId": id, "text": "go"})
		done <- res
	}()
	waitFor(t, c, "assistant_delta")
	other := k.dial()
	request(t, other, map[string]any{"command": cmdStop, "wait": true})
	select {
	case res := <-done:
		if got := transcriptTexts(snapshotOf(res)); len(got) != 2 || got[1] != "assistant:"+strings.Repeat("words ", 60) {
			t.Fatalf("the run did not finish: %q", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer to the prompt")
	}
	select {
	case <-k.done:
		k.stopped.Do(func() {})
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after the run")
	}
}
