package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"pi/internal/cbor"
)

// Server holds the live sessions behind a unix socket.
type Server struct {
	opts  Options
	id    string
	token []byte // SHA-256 of Options.Token; nil: no token

	mu       sync.Mutex
	conns    map[*conn]bool
	revision int64
	sessions map[string]*live
	opening  map[string]*opening // opens in flight, shared by concurrent attaches
	stored   []SessionMetadata   // the stored sessions, as last read
	paths    map[string]string   // the stored sessions' Paths in the store (a file, or its name), by id
	// revisions are the last revisions of disposed sessions: a session opened again goes on
	// from there, so a client never sees its revision go back.
	revisions map[string]int64
	closing   bool
	stop      context.CancelFunc // ends ServeListener
	ops       sync.WaitGroup     // commands in flight
	models    modelCache
}

// opening is an open of a session that concurrent attaches wait for together.
type opening struct {
	done chan struct{}
	l    *live
	err  error
}

// New makes a server; Serve runs it.
func New(opts Options) *Server {
	opts.defaults()
	var token []byte
	if opts.Token != "" {
		token = tokenDigest(opts.Token)
	}
	return &Server{opts: opts, id: newID(), token: token, conns: map[*conn]bool{}, sessions: map[string]*live{},
		opening: map[string]*opening{}, revisions: map[string]int64{}, paths: map[string]string{}}
}

// Serve listens on the socket and serves until ctx ends, then closes every connection and
// session (stopping the work in flight, closing the session files) and removes the socket.
func (s *Server) Serve(ctx context.Context) error {
	ln, err := listen(s.opts.Socket)
	if err != nil {
		return err
	}
	return s.ServeListener(ctx, ln)
}

// ServeListener serves on a listener already set up (tests use one).
func (s *Server) ServeListener(ctx context.Context, ln *Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.stop = cancel
	s.mu.Unlock()
	s.refreshStored(ctx)
	s.refreshModels(ctx)
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var conns sync.WaitGroup
	for {
		nc, who, err := ln.accept()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				fmt.Fprintln(s.opts.Log, "pi serve: accepting:", err)
				continue
			}
			break
		}
		c := newConn(s, nc)
		c.refusal = s.refusal(who)
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		conns.Add(1)
		go func() {
			defer conns.Done()
			c.serve(ctx)
		}()
	}
	ln.Close() // the closing goroutine may not have removed the socket yet: it is gone on return
	s.shutdown(&conns)
	return nil
}

// refusal is why the server refuses the client who, or "" when it serves it. A client with
// no_new_privs may run inside pi's sandbox: the server runs unconfined, so one of its
// sessions would do for a confined command what the sandbox denies it (write $HOME).
func (s *Server) refusal(who peer) string {
	if s.opts.AllowNoNewPrivs || (!who.sandboxed && who.unknown == nil) {
		return ""
	}
	why := "the client runs with no_new_privs, as every command inside pi's sandbox does"
	if who.unknown != nil {
		why = "pi serve cannot tell whether the client runs inside pi's sandbox: " + who.unknown.Error()
	}
	fmt.Fprintf(s.opts.Log, "pi serve: refused a client (pid %d): %s\n", who.pid, why)
	return "pi serve refuses this client: " + why + "; a sandboxed command may not drive the unconfined server " +
		"(start pi serve with --allow-no-new-privs where every program runs with no_new_privs)"
}

// stopSoon stops the server once the current response is on its way; with wait, once no
// live session is busy either (new prompts are still taken meanwhile).
func (s *Server) stopSoon(wait bool) {
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	go func() {
		for wait && s.busy() {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		stop()
	}()
}

// busy reports whether a live session has a run or another command going.
func (s *Server) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.sessions {
		l.mu.Lock()
		b := l.phase != "idle" || l.ops > 0 || l.ag.IsRunning()
		l.mu.Unlock()
		if b {
			return true
		}
	}
	return false
}

// shutdown ends every connection, then every session.
func (s *Server) shutdown(conns *sync.WaitGroup) {
	s.mu.Lock()
	s.closing = true
	for c := range s.conns {
		c.nc.Close()
	}
	sessions := make([]*live, 0, len(s.sessions))
	for _, l := range s.sessions {
		sessions = append(sessions, l)
	}
	s.mu.Unlock()
	for _, l := range sessions {
		l.rt.Abort()
	}
	conns.Wait()
	s.ops.Wait()
	for _, l := range sessions {
		s.dispose(l)
	}
}

// encode makes one frame of a message; a message the server cannot encode is reported and
// not sent (nil).
func (s *Server) encode(v any) []byte {
	b, err := cbor.Marshal(v)
	if err == nil && len(b) > int(s.opts.MaxFrame) {
		err = fmt.Errorf("%d bytes, over the frame limit of %d", len(b), s.opts.MaxFrame)
	}
	if err != nil {
		fmt.Fprintf(s.opts.Log, "pi serve: encoding a %T: %v\n", v, err)
		return nil
	}
	return cbor.AppendFrame(make([]byte, 0, 4+len(b)), b)
}

// greet answers a hello with the server snapshot. The hello is queued before the
// connection counts as ready, under the lock server snapshots are sent under, so it is the
// first frame and every later snapshot is newer.
func (s *Server) greet(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hello := &serverHello{Type: "hello", Version: int(c.version), ConnectionID: c.id, Snapshot: s.serverSnapshotLocked()}
	if c.pi {
		hello.Capabilities = []string{CapabilityPi}
	}
	c.send(s.encode(hello))
	c.mu.Lock()
	c.ready = true
	c.mu.Unlock()
}

func (s *Server) serverSnapshotLocked() *ServerSnapshot {
	models := s.modelsLocked()
	return &ServerSnapshot{ServerID: s.id, ProtocolVersion: ProtocolVersion, Revision: s.revision,
		Sessions: s.listLocked(), Models: models}
}

func (s *Server) serverSnapshotFrame() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.encode(&eventEnvelope{Type: "event", Event: &Event{Type: "server_snapshot", Snapshot: s.serverSnapshotLocked()}})
}

// serverChanged moves the server revision on and sends the snapshot to every client.
func (s *Server) serverChanged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return
	}
	s.revision++
	f := s.encode(&eventEnvelope{Type: "event", Event: &Event{Type: "server_snapshot", Snapshot: s.serverSnapshotLocked()}})
	for c := range s.conns {
		c.sendEvent(f, true)
	}
}

// disconnected forgets a connection that has ended: its sessions lose it, and may go.
func (s *Server) disconnected(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.mu.Lock()
	ready := c.ready
	sessions := c.attached
	c.attached = map[string]*live{}
	c.mu.Unlock()
	for _, l := range sessions {
		l.mu.Lock()
		l.dropConnLocked(c)
		l.mu.Unlock()
		s.maybeDispose(l)
	}
	if ready {
		s.serverChanged()
	}
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func itoa(i int) string { return strconv.Itoa(i) }
