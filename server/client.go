package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"

	"pi/internal/cbor"
)

// Client is a connection to a pi server, for pi's own clients and tests. Messages are
// decoded CBOR maps (map[string]any).
type Client struct {
	nc     net.Conn
	fr     *cbor.FrameReader
	Hello  map[string]any // the server's hello
	events chan map[string]any

	mu      sync.Mutex
	seq     int
	pending map[string]chan map[string]any
	err     error // why the connection ended
	done    chan struct{}
}

// ErrClosed is returned by requests on a connection that has ended.
var ErrClosed = errors.New("connection to the pi server closed")

// Dial connects to the socket at path and says hello, with the token in the file
// $PI_SERVE_TOKEN_FILE names, if it names one.
func Dial(ctx context.Context, path string) (*Client, error) {
	token := ""
	if f := os.Getenv("PI_SERVE_TOKEN_FILE"); f != "" {
		t, err := ReadToken(f)
		if err != nil {
			return nil, err
		}
		token = t
	}
	return DialToken(ctx, path, token)
}

// DialToken is Dial with a token (empty: none), sent in a version-2 hello.
func DialToken(ctx context.Context, path, token string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("connecting to pi serve at %s: %w", path, err)
	}
	c := &Client{nc: nc, fr: cbor.NewFrameReader(bufio.NewReader(nc), 0), events: make(chan map[string]any, 4096), pending: map[string]chan map[string]any{},
		done: make(chan struct{})}
	if err := c.hello(token); err != nil {
		nc.Close()
		return nil, fmt.Errorf("pi serve at %s: %w", path, err)
	}
	go c.readLoop()
	return c, nil
}

func (c *Client) write(v any) error {
	b, err := cbor.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.nc.Write(cbor.AppendFrame(nil, b))
	return err
}

func (c *Client) hello(token string) error {
	hello := map[string]any{"type": "hello", "version": ProtocolVersion, "capabilities": []any{CapabilityPi}}
	if token != "" {
		hello["version"], hello["token"] = 2, token
	}
	if err := c.write(hello); err != nil {
		return err
	}
	m, err := readMessage(c.fr)
	if err != nil {
		return err
	}
	if m["type"] == "hello_error" {
		return serverError(m["error"])
	}
	if m["type"] != "hello" {
		return fmt.Errorf("unexpected first message %v", m["type"])
	}
	c.Hello = m
	return nil
}

func readMessage(fr *cbor.FrameReader) (map[string]any, error) {
	p, err := fr.Next()
	if err != nil {
		return nil, err
	}
	v, err := cbor.Decode(p, cbor.Limits{})
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("a server message that is not a map")
	}
	return m, nil
}

func serverError(v any) error {
	m, _ := v.(map[string]any)
	code, _ := m["code"].(string)
	msg, _ := m["message"].(string)
	return &Error{Code: code, Message: msg}
}

func (c *Client) readLoop() {
	defer close(c.events)
	for {
		m, err := readMessage(c.fr)
		if err != nil {
			c.end(err)
			return
		}
		switch m["type"] {
		case "event":
			if ev, ok := m["event"].(map[string]any); ok {
				c.events <- ev
			}
		case "response":
			id, _ := m["id"].(string)
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case "hello_error":
			c.end(serverError(m["error"]))
			return
		}
	}
}

func (c *Client) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

// Events are the server's events, in order; the channel closes with the connection.
func (c *Client) Events() <-chan map[string]any { return c.events }

// Request sends a command and waits for its result.
func (c *Client) Request(ctx context.Context, cmd map[string]any) (map[string]any, error) {
	ch := make(chan map[string]any, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %v", ErrClosed, c.err)
	}
	c.seq++
	id := "request-" + strconv.Itoa(c.seq)
	c.pending[id] = ch
	err := c.write(map[string]any{"type": "request", "id": id, "request": cmd})
	if err != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if err != nil { // the connection cannot carry requests any more, whether or not it has ended yet
		return nil, fmt.Errorf("%w: sending %v: %v", ErrClosed, cmd["command"], err)
	}
	select {
	case m := <-ch:
		if m["ok"] != true {
			return nil, serverError(m["error"])
		}
		res, _ := m["result"].(map[string]any)
		return res, nil
	case <-c.done:
		return nil, fmt.Errorf("%w: %v", ErrClosed, c.err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// HasPi says whether the server's hello took up pi's extensions (extension.go).
func (c *Client) HasPi() bool {
	caps, _ := c.Hello["capabilities"].([]any)
	for _, name := range caps {
		if name == CapabilityPi {
			return true
		}
	}
	return false
}

// Close ends the connection.
func (c *Client) Close() error { return c.nc.Close() }
