package wire

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"pi/provider"
)

// StreamError is a reply that a bound of pi's ended: a server that kept it waiting longer than
// the stream timeouts allow, or one that would not end it (see LimitReply).
type StreamError struct {
	Server  string // the server's base URL
	Did     string // what it did: "sent no response headers within 300s"
	Bound   string // the setting that ended the reply, for the user who must change it
	Timeout bool   // a timeout; otherwise the reply overran its output budget
}

// Error starts with "timed out" or "stream overran", which provider.IsRetryable counts as
// transient.
func (e *StreamError) Error() string {
	kind := "stream overran"
	if e.Timeout {
		kind = "timed out"
	}
	return fmt.Sprintf("%s: %s %s (%s)", kind, e.Server, e.Did, e.Bound)
}

// Watch returns a copy of client (nil: http.DefaultClient) whose every request is bounded by
// t: it fails with a *StreamError when no byte of data arrives within t.FirstByte of sending
// it, or none for t.Idle once data has started. Keep-alives are not data (see progressScanner).
// server is the base URL the errors name. Zero timeouts mean the defaults.
func Watch(client *http.Client, server string, t provider.StreamTimeouts) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	c.Transport = &watchTransport{base: client.Transport, server: redactURL(server), t: t.WithDefaults()}
	return &c
}

type watchTransport struct {
	base   http.RoundTripper
	server string
	t      provider.StreamTimeouts
}

// RoundTrip sends req under a context the watchdog cancels when a timeout passes; the
// watchdog's error then replaces whatever the transport says about the cancellation.
func (w *watchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	wd := &watchdog{server: w.server, t: w.t, cancel: cancel, deadline: time.Now().Add(w.t.FirstByte)}
	wd.mu.Lock()
	wd.timer = time.AfterFunc(w.t.FirstByte, wd.expire)
	wd.mu.Unlock()
	base := w.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		if ferr := wd.stop(); ferr != nil {
			return nil, ferr
		}
		return nil, err
	}
	wd.mu.Lock()
	wd.headers = true
	wd.mu.Unlock()
	resp.Body = &watchedBody{ReadCloser: resp.Body, wd: wd}
	return resp, nil
}

// watchdog times one request. The deadline moves with every byte of data; the timer, armed
// for the first deadline, re-arms itself for a later one instead of being reset on each read.
type watchdog struct {
	server string
	t      provider.StreamTimeouts
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	timer    *time.Timer
	deadline time.Time
	headers  bool  // the response headers arrived
	total    int64 // body bytes so far, keep-alives included
	data     int64 // bytes of data so far
	scan     progressScanner
	closed   bool
	err      *StreamError // the timeout that ended the request
}

func (wd *watchdog) expire() {
	wd.mu.Lock()
	if wd.closed || wd.err != nil {
		wd.mu.Unlock()
		return
	}
	if left := time.Until(wd.deadline); left > 0 {
		wd.timer.Reset(left)
		wd.mu.Unlock()
		return
	}
	wd.err = wd.timeout()
	err := wd.err
	wd.mu.Unlock()
	wd.cancel(err)
}

// timeout says what the server did, from what arrived. The caller holds mu.
func (wd *watchdog) timeout() *StreamError {
	e := &StreamError{Server: wd.server, Timeout: true, Bound: "stream.first_byte_timeout"}
	within := seconds(wd.t.FirstByte)
	if wd.data > 0 {
		e.Bound, within = "stream.idle_timeout", seconds(wd.t.Idle)
	}
	after := ""
	if wd.data > 0 {
		after = fmt.Sprintf(" after %d bytes", wd.total)
	}
	switch {
	case !wd.headers:
		e.Did = "sent no response headers within " + within
	case wd.scan.comments:
		e.Did = "sent only keep-alive comments for " + within + after
	case wd.scan.blankLines > 1: // one blank line ends an SSE event
		e.Did = "sent only blank lines for " + within + after
	case wd.data == 0:
		e.Did = "sent response headers but no data within " + within
	default:
		e.Did = "went silent for " + within + after
	}
	return e
}

// saw accounts for bytes read from the body.
func (wd *watchdog) saw(p []byte) {
	if len(p) == 0 {
		return
	}
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.total += int64(len(p))
	if n := wd.scan.scan(p); n > 0 {
		wd.data += int64(n)
		wd.deadline = time.Now().Add(wd.t.Idle)
	}
}

// stop ends the watch and returns the timeout that fired, if one did.
func (wd *watchdog) stop() error {
	wd.mu.Lock()
	wd.closed = true
	wd.timer.Stop()
	err := wd.err
	wd.mu.Unlock()
	wd.cancel(nil)
	if err != nil {
		return err
	}
	return nil
}

// fired returns the timeout that ended the request, if one did.
func (wd *watchdog) fired() error {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.err != nil {
		return wd.err
	}
	return nil
}

type watchedBody struct {
	io.ReadCloser
	wd *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.wd.saw(p[:n])
	if err != nil && err != io.EOF {
		if ferr := b.wd.fired(); ferr != nil {
			return n, ferr
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.wd.stop()
	return err
}

// seconds formats d as the user wrote it in pi.toml: "300s"; a fraction (tests) as Go does.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
