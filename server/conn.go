package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"pi/internal/cbor"
)

// conn is one client connection. A reader goroutine takes the hello and then requests (each
// handled on its own goroutine, as upstream does); a writer goroutine drains the outbound
// queue. Nothing that sends to a connection waits for it: events go into a queue bounded by
// Options.MaxQueued, and a connection that falls further behind loses its queued events and
// is sent fresh snapshots of its sessions once it has caught up.
type conn struct {
	srv *Server
	nc  net.Conn
	id  string

	mu       sync.Mutex
	wake     chan struct{} // a frame was queued or the connection is ending
	queue    []outFrame
	queued   int   // bytes of events in queue
	stale    bool  // events were dropped; snapshots are due
	closing  bool  // no more frames; the writer ends after the queue
	ready    bool  // the hello was answered
	version  int64 // the hello's: 1, or 2 with a token
	pi       bool  // the hello asked for pi's extensions (extension.go)
	attached map[string]*live
	done     chan struct{} // closed when the writer has ended
	// refusal, when set, is the hello_error the client gets for its hello (Server.refusal).
	refusal string
}

type outFrame struct {
	b     []byte
	event bool
}

// maxResponses bounds the responses a client that never reads can make the server hold.
const maxResponses = 64 << 20

func newConn(srv *Server, nc net.Conn) *conn {
	return &conn{srv: srv, nc: nc, id: newID(), wake: make(chan struct{}, 1), attached: map[string]*live{},
		done: make(chan struct{})}
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// send queues a response or handshake frame; those are never dropped.
func (c *conn) send(frame []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return
	}
	total := len(frame)
	for _, f := range c.queue {
		total += len(f.b)
	}
	if total > maxResponses {
		c.closing = true // a client that reads nothing while it keeps asking
		c.nc.Close()
	} else {
		c.queue = append(c.queue, outFrame{b: frame})
	}
	c.signal()
}

// sendEvent queues an event frame. Past the bound, the queued events are dropped and the
// connection is marked stale: it gets fresh snapshots instead.
func (c *conn) sendEvent(frame []byte, _ bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || !c.ready {
		return
	}
	if c.stale {
		return
	}
	if c.queued+len(frame) > c.srv.opts.MaxQueued {
		kept := c.queue[:0]
		for _, f := range c.queue {
			if !f.event {
				kept = append(kept, f)
			}
		}
		clear(c.queue[len(kept):])
		c.queue, c.queued, c.stale = kept, 0, true
		c.signal()
		return
	}
	c.queue = append(c.queue, outFrame{b: frame, event: true})
	c.queued += len(frame)
	c.signal()
}

// writeLoop writes queued frames until the connection closes.
func (c *conn) writeLoop() {
	defer close(c.done)
	defer c.nc.Close()
	for {
		c.mu.Lock()
		if len(c.queue) == 0 && c.stale && !c.closing {
			c.stale = false
			c.mu.Unlock()
			c.catchUp()
			continue
		}
		if len(c.queue) == 0 {
			closing := c.closing
			c.mu.Unlock()
			if closing {
				return
			}
			<-c.wake
			continue
		}
		batch := c.takeLocked()
		c.mu.Unlock()
		if _, err := batch.WriteTo(c.nc); err != nil {
			c.shut()
			return
		}
	}
}

// takeLocked takes the frames at the head of the queue, up to maxBatch bytes (at least one
// frame), for one write: a client that has fallen behind costs one system call per batch,
// not per frame.
func (c *conn) takeLocked() net.Buffers {
	var batch net.Buffers
	size := 0
	for len(c.queue) > 0 && (len(batch) == 0 || size+len(c.queue[0].b) <= maxBatch) {
		f := c.queue[0]
		c.queue[0] = outFrame{}
		c.queue = c.queue[1:]
		if f.event {
			c.queued -= len(f.b)
		}
		batch = append(batch, f.b)
		size += len(f.b)
	}
	return batch
}

const maxBatch = 256 << 10

// catchUp sends a stale connection the current snapshots of the server and its sessions.
func (c *conn) catchUp() {
	c.send(c.srv.serverSnapshotFrame())
	c.mu.Lock()
	sessions := make([]*live, 0, len(c.attached))
	for _, l := range c.attached {
		sessions = append(sessions, l)
	}
	c.mu.Unlock()
	for _, l := range sessions {
		l.mu.Lock()
		if l.conns[c] {
			c.send(l.snapshotFrameLocked())
		}
		l.mu.Unlock()
	}
}

// shut stops queueing and lets the writer end after what is queued.
func (c *conn) shut() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.signal()
}

// fail sends a last hello_error after whatever is queued and ends the connection.
func (c *conn) fail(code, msg string) {
	if len(msg) > 500 {
		msg = msg[:497] + "..."
	}
	c.send(c.srv.encode(&helloError{Type: "hello_error", Error: protoErr(code, msg)}))
	c.shut()
}

// serve runs the connection: the handshake, then requests until the client goes.
func (c *conn) serve(ctx context.Context) {
	go c.writeLoop()
	defer func() {
		c.shut()
		<-c.done
		c.srv.disconnected(c)
	}()
	fr := cbor.NewFrameReader(bufio.NewReader(c.nc), c.srv.opts.MaxFrame)
	if !c.handshake(fr) {
		return
	}
	c.srv.refreshModels(ctx)
	var handlers sync.WaitGroup
	defer handlers.Wait()
	for {
		payload, err := fr.Next()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && !isEOF(err) {
				c.fail(CodeInvalidRequest, "Invalid client protocol frame: "+err.Error())
			}
			return
		}
		msg, err := parseClientMessage(payload, int(c.srv.opts.MaxFrame))
		if err != nil {
			c.fail(CodeInvalidRequest, err.Error())
			return
		}
		if msg.hello {
			c.fail(CodeInvalidRequest, "hello may only be sent as the first message")
			return
		}
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			c.handle(ctx, msg)
		}()
	}
}

// handshake reads the hello within the timeout and answers it.
func (c *conn) handshake(fr *cbor.FrameReader) bool {
	c.nc.SetReadDeadline(time.Now().Add(c.srv.opts.HandshakeTimeout))
	payload, err := fr.Next()
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		c.fail(CodeInvalidRequest, "Handshake timeout")
		return false
	case isEOF(err) || errors.Is(err, net.ErrClosed):
		return false
	case err != nil:
		c.fail(CodeInvalidRequest, "Invalid client protocol frame: "+err.Error())
		return false
	}
	c.nc.SetReadDeadline(time.Time{})
	msg, err := parseClientMessage(payload, int(c.srv.opts.MaxFrame))
	switch {
	case c.refusal != "": // whatever it sent: a refused client gets no further
		c.fail(CodeInvalidRequest, c.refusal)
		return false
	case err != nil:
		c.fail(CodeInvalidRequest, err.Error())
		return false
	case !msg.hello:
		c.fail(CodeInvalidRequest, "The first client message must be hello")
		return false
	case c.srv.token != nil || msg.token != "":
		if !c.tokenOK(msg) {
			return false
		}
	case msg.version != ProtocolVersion:
		c.fail(CodeVersion, fmt.Sprintf("Unsupported protocol version %d; expected %d", msg.version, ProtocolVersion))
		return false
	}
	c.mu.Lock()
	c.version, c.pi = msg.version, msg.pi
	c.mu.Unlock()
	c.srv.pruneStored() // a session file deleted since the last list leaves it
	c.srv.greet(c)
	return true
}

// isEOF reports the client's end of the stream, inside a frame or between frames: there is
// nobody left to tell.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, cbor.ErrTruncatedFrame)
}
