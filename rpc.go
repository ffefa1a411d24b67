package main

// rpc.go is `pi --mode rpc`: pi's JSONL protocol on stdin and stdout, so that editor plug-ins,
// web front ends and scripts written for pi can drive this pi unchanged. docs/rpc.md's
// section describes the protocol.
//
// Framing is strict JSONL: lines end at '\n' only (a trailing '\r' is dropped), never at
// U+2028 or U+2029, which JSON allows inside strings. Stdout carries nothing but protocol
// lines, each written whole under one mutex; diagnostics go to stderr.
//
// Commands are handled one at a time, in order, by the serve loop; each is one call of the live session.
// Anything that may take long runs on its own goroutine and answers when done: a prompt (its
// response only says it was accepted, and comes before the run's first event; the rest
// arrives as events), compaction and bash. At the end of input all of it runs to its end. What
// is in flight is the live session's business, not the server's. Answers to extension UI requests
// are taken by the reading goroutine itself, so a script waiting for the user never waits
// behind the command that made it ask.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"pi/agent"
	"pi/extui"
	"pi/live"
	"pi/provider"
	"pi/rpcwire"
)

// rpcServer is one RPC session between pi and its client.
type rpcServer struct {
	h        *live.Session
	stderr   io.Writer
	handlers map[string]rpcHandler

	outMu sync.Mutex
	out   io.Writer

	// The extension UI sub-protocol: the scripts' questions as lines, answered by the client.
	// Confirm, Select, Input, Editor and Notify are what the scripts' user interface asks for,
	// so scripts get the same answers in RPC mode as in the terminal UI.
	*extui.Asker
	queue     queueWatch       // sends queue_update only on changes
	updates   agent.UpdateGate // which message_update events carry the partial reply
	answering sync.WaitGroup   // goroutines that will still write a response
	maxLine   int              // longest command line read; longer ones are dropped
}

// Bounds on what a client can make pi hold or echo: a command line (images travel inline, as
// base64), and the id and command name a response repeats.
const (
	maxCommandLine = 64 << 20
	maxEchoedID    = 1 << 10
	maxEchoedName  = 64
)

// rpcHandler runs one command. A nil result means a response without "data"; json.RawMessage
// "null" means data: null.
type rpcHandler func(ctx context.Context, s *rpcServer, c *rpcwire.Command) (any, error)

// answeredLater is what a handler returns when its goroutine will send the response.
type answeredLater struct{}

// jsonNull is data: null, which pi sends when there was nothing to do (cycle_model with one
// model, cycle_thinking_level on a model without reasoning).
func jsonNull() json.RawMessage { return json.RawMessage("null") }

// runRPCMode serves the protocol until stdin ends or ctx is cancelled (SIGTERM). At the end of
// input the work in flight runs to its end; on a signal it is aborted. Either way it has
// stopped when runRPCMode returns, so the caller can close the session; it always returns 0.
func runRPCMode(ctx context.Context, h *live.Session, fullUpdates bool, stdin io.Reader, stdout, stderr io.Writer) int {
	s := newRPCServer(h, stdout, stderr)
	s.updates.SetFull(fullUpdates)
	return s.serve(ctx, stdin)
}

func newRPCServer(h *live.Session, stdout, stderr io.Writer) *rpcServer {
	s := &rpcServer{h: h, out: stdout, stderr: stderr, maxLine: maxCommandLine}
	s.Asker = extui.New(func(line []byte) bool { s.writeLine(line); return true })
	s.handlers = commandTable()
	return s
}

// serve reads commands and answers them until stdin ends or ctx is done.
func (s *rpcServer) serve(ctx context.Context, stdin io.Reader) int {
	unsubscribe := s.h.Agent().Subscribe(s.onEvent)
	defer unsubscribe()
	s.h.SetUI(s) // scripts' questions go to the client
	defer s.h.SetUI(nil)
	lines := make(chan []byte)
	stop := make(chan struct{})
	defer close(stop)
	go s.readLines(stdin, lines, stop)
	for {
		select {
		case <-ctx.Done():
			s.shutdown()
			return 0
		case line, ok := <-lines:
			if !ok {
				s.finish(ctx)
				return 0
			}
			s.handleLine(ctx, line)
		}
	}
}

// readLines splits stdin into lines and hands them over, answering extension UI responses
// itself. It closes lines at the end of input.
func (s *rpcServer) readLines(r io.Reader, lines chan<- []byte, stop <-chan struct{}) {
	defer close(lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, s.maxLine)
		if tooLong {
			s.respond(nil, "parse", nil, fmt.Errorf("a command line longer than %d bytes was dropped", s.maxLine))
		}
		if line = trimLine(line); len(line) > 0 && !s.Route(line) {
			select {
			case lines <- line:
			case <-stop:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintln(s.stderr, "pi: reading commands:", err)
			}
			return
		}
	}
}

// readLine reads up to and including the next '\n'. A line longer than limit is read to its
// end but not kept (tooLong), so a client cannot make pi hold a line of any size.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(chunk) > limit:
			line, tooLong = nil, true
		default:
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// clip shortens s to at most n bytes of valid UTF-8, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// trimLine drops the line end: '\n', then one '\r' before it.
func trimLine(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// handleLine answers one command line. Blank lines are ignored (a client's keep-alive).
func (s *rpcServer) handleLine(ctx context.Context, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	c, err := decodeCommand(line)
	switch {
	case err != nil && c.Type == "":
		s.respond(c.ID, "parse", nil, fmt.Errorf("cannot parse the command: %w", err))
		return
	case err != nil:
		s.respond(c.ID, c.Type, nil, err)
		return
	}
	h, ok := s.handlers[c.Type]
	if !ok {
		s.respond(c.ID, c.Type, nil, fmt.Errorf("unknown command %q", clip(c.Type, maxEchoedName)))
		return
	}
	data, err := h(ctx, s, &c)
	if _, later := data.(answeredLater); later {
		return
	}
	s.respond(c.ID, c.Type, data, err)
}

// decodeCommand reads one command line. When the line is not a JSON object with a "type"
// string, the returned command has an empty Type (a parse error); otherwise Type and ID are
// set even if other fields are malformed, so the error can name the command.
func decodeCommand(line []byte) (rpcwire.Command, error) {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(line, &head); err != nil {
		return rpcwire.Command{}, err
	}
	var c rpcwire.Command
	if id := head["id"]; len(id) > 0 && string(id) != "null" {
		c.ID = id
	}
	if err := json.Unmarshal(head["type"], &c.Type); err != nil || c.Type == "" {
		c.Type = ""
		return c, errors.New(`a command needs a "type" string`)
	}
	id, typ := c.ID, c.Type
	if err := json.Unmarshal(line, &c); err != nil {
		return rpcwire.Command{ID: id, Type: typ}, fmt.Errorf("command %s: %w", typ, err)
	}
	c.ID = id
	for _, b := range c.Images {
		if b.Type != provider.BlockImage {
			return c, fmt.Errorf("command %s: images may hold only image blocks, not %q", typ, b.Type)
		}
	}
	return c, nil
}

// write sends one protocol line.
func (s *rpcServer) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(s.stderr, "pi: encoding an RPC line:", err)
		return
	}
	s.writeLine(data)
}

// writeLine sends one line already encoded.
func (s *rpcServer) writeLine(data []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if _, err := s.out.Write(append(data, '\n')); err != nil {
		fmt.Fprintln(s.stderr, "pi: writing an RPC line:", err)
	}
}

// respond sends {"type":"response","id","command","success","data"|"error"}.
func (s *rpcServer) respond(id json.RawMessage, command string, data any, err error) {
	if len(id) > maxEchoedID {
		id, err = nil, fmt.Errorf("the command's id is %d bytes; ids of up to %d bytes are echoed", len(id), maxEchoedID)
	}
	r := rpcwire.Response{Type: "response", ID: id, Command: clip(command, maxEchoedName), Success: err == nil}
	if err == nil && data != nil {
		if r.Data, err = json.Marshal(data); err != nil {
			r.Success, r.Data = false, nil
			err = fmt.Errorf("encoding the answer: %w", err)
		}
	}
	if err != nil {
		r.Error = err.Error()
	}
	s.write(r)
}

// onEvent forwards every agent event, and queue_update when a queue changed.
func (s *rpcServer) onEvent(_ context.Context, ev agent.Event) {
	if ev.Type != live.EvQueueUpdate {
		s.write(s.updates.Thin(ev))
	}
	if ev.Type == agent.EvMessageStart || ev.Type == agent.EvAgentEnd || ev.Type == live.EvQueueUpdate {
		s.queueUpdate() // a queued message is delivered just before its message_start
	}
}

// queueUpdate sends queue_update{steering, followUp} when the queues differ from the last one
// sent.
func (s *rpcServer) queueUpdate() {
	if line, changed := s.queue.update(s.h.Agent()); changed {
		s.write(json.RawMessage(line))
	}
}

// finish is the end of input: nobody is left to answer a question, but what the client asked
// for runs to its end (a prompt and its queued turns, a compaction, a bash command), and its
// responses and events are written, unless ctx ends first (a signal), which stops it.
func (s *rpcServer) finish(ctx context.Context) {
	s.Asker.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.answering.Wait() // a compact's response is owed before its compaction has begun
		s.h.Finish(ctx)    //nolint:errcheck // a signal: shutdown stops the rest
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.shutdown()
}

// shutdown ends the session with the client: pending UI requests are cancelled, the work in
// flight is stopped, and the responses still owed are written.
func (s *rpcServer) shutdown() {
	s.Asker.Close() // open questions are cancelled, later ones too
	s.h.Quiesce()
	s.answering.Wait()
}

// background runs fn on its own goroutine and sends its result as the response to c.
func (s *rpcServer) background(c *rpcwire.Command, fn func() (any, error)) answeredLater {
	s.answering.Add(1)
	go func() {
		defer s.answering.Done()
		data, err := fn()
		s.respond(c.ID, c.Type, data, err)
	}()
	return answeredLater{}
}

// send hands an input to the front door and answers once it has been accepted or refused; a
// failure after acceptance is a second response to the same id, as in pi.
// The success response is written by the front door's own goroutine as it accepts the input,
// so it comes before the first event of the run, as in pi.
func (s *rpcServer) send(ctx context.Context, c *rpcwire.Command, in live.Input) (any, error) {
	accepted := make(chan struct{})
	in.Accepted = func() {
		s.respond(c.ID, c.Type, nil, nil)
		close(accepted)
	}
	result := make(chan error, 1)
	s.answering.Add(1)
	go func() {
		defer s.answering.Done()
		result <- s.h.Send(ctx, in)
	}()
	select {
	case err := <-result:
		select {
		case <-accepted: // accepted, then failed at once
			if err != nil {
				s.respond(c.ID, c.Type, nil, err)
			}
			return answeredLater{}, nil
		default:
			return nil, rpcWording(err)
		}
	case <-accepted:
	}
	s.answering.Add(1)
	go func() {
		defer s.answering.Done()
		if err := <-result; err != nil {
			s.respond(c.ID, c.Type, nil, err)
		}
	}()
	return answeredLater{}, nil
}

// rpcWording says how a client queues a prompt when the agent is busy.
func rpcWording(err error) error {
	if errors.Is(err, live.ErrRunning) {
		return errors.New(`the agent is working on a prompt: send it with "streamingBehavior": "steer" or "followUp" to queue it`)
	}
	if errors.Is(err, live.ErrCompacting) {
		return errors.New("the conversation is being compacted: wait for compaction_end")
	}
	return err
}
