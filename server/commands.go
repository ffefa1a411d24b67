package server

import (
	"context"
	"errors"
	"fmt"

	"pi/session"
)

// handle runs one request and sends its response. Commands on a session go to its runtime;
// the response carries the snapshot after the operation, which the attached clients also
// get as an event.
func (c *conn) handle(ctx context.Context, msg clientMessage) {
	s := c.srv
	s.ops.Add(1)
	defer s.ops.Done()
	res, err := c.run(ctx, msg.cmd)
	if err != nil {
		pe := asProtocolError(err)
		c.send(s.encode(&errResponse{Type: "response", ID: msg.id, OK: false, Error: pe}))
		return
	}
	c.send(s.encode(&okResponse{Type: "response", ID: msg.id, OK: true, Result: res}))
	if res.after != nil {
		res.after()
	}
}

func asProtocolError(err error) *Error {
	var pe *Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, ErrBusy):
		return protoErr(CodeBusy, err.Error())
	case errors.Is(err, session.ErrLocked):
		return protoErr(CodeSessionLocked, err.Error())
	}
	return protoErr(CodeInternal, err.Error())
}

func (c *conn) run(ctx context.Context, cmd command) (*Result, error) {
	s := c.srv
	switch cmd.Name {
	case "list":
		s.pruneStored()
		s.mu.Lock()
		list := s.listLocked()
		s.mu.Unlock()
		return &Result{Command: "list", Sessions: &list}, nil
	case "create":
		l, err := s.create(ctx, cmd)
		if err != nil {
			return nil, err
		}
		return c.attach(l, "create")
	case "attach":
		id, err := s.resolveID(ctx, cmd.SessionID)
		if err != nil {
			return nil, err
		}
		l, err := s.acquire(ctx, id)
		if err != nil {
			return nil, err
		}
		return c.attach(l, "attach")
	case cmdStatus:
		return s.status(), nil
	case cmdStop:
		s.stopSoon(cmd.Wait)
		return &Result{Command: cmdStop}, nil
	case cmdRPC:
		return c.runRPC(ctx, cmd)
	case "detach":
		c.detach(cmd.SessionID)
		return &Result{Command: "detach", SessionID: cmd.SessionID}, nil
	}
	l, err := c.attachedTo(cmd.SessionID)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.ops++
	l.mu.Unlock()
	err = c.operate(ctx, l, cmd)
	l.mu.Lock()
	l.ops--
	l.changedLocked()
	snap := l.snapshotLocked()
	l.mu.Unlock()
	defer s.maybeDispose(l)
	if err != nil {
		return nil, err
	}
	return &Result{Command: cmd.Name, Session: snap}, nil
}

// operate runs a session command on the runtime.
func (c *conn) operate(ctx context.Context, l *live, cmd command) error {
	switch cmd.Name {
	case "prompt":
		if l.ag.IsRunning() {
			return protoErr(CodeBusy, "Session "+l.id+" is already running a prompt; steer it or abort it")
		}
		return l.rt.Prompt(ctx, cmd.Text)
	case "steer":
		return l.rt.Steer(ctx, cmd.Text)
	case "abort":
		l.rt.Abort()
		return nil
	case "set_model":
		return l.rt.SetModel(ctx, cmd.Model.Provider, cmd.Model.ID)
	case "set_thinking":
		return l.rt.SetThinking(cmd.Thinking)
	}
	return protoErr(CodeNotImplemented, "Operation is not implemented")
}

// attach adds the connection to a live session's clients and answers with its snapshot.
func (c *conn) attach(l *live, name string) (*Result, error) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		c.srv.maybeDispose(l)
		return nil, protoErr(CodeInvalidRequest, "Connection closed while attaching to session "+l.id)
	}
	c.attached[l.id] = l
	c.mu.Unlock()
	l.mu.Lock()
	if l.gone {
		l.mu.Unlock()
		return nil, protoErr(CodeNotFound, "Session is not live: "+l.id)
	}
	l.conns[c] = true
	snap := l.snapshotLocked()
	l.mu.Unlock()
	if c.hasPi() {
		l.replayUI(c)
	}
	c.srv.serverChanged()
	return &Result{Command: name, Session: snap}, nil
}

// detach takes the connection off a session; detaching what is not attached does nothing.
func (c *conn) detach(id string) {
	c.mu.Lock()
	l := c.attached[id]
	delete(c.attached, id)
	c.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	l.dropConnLocked(c)
	l.mu.Unlock()
	c.srv.maybeDispose(l)
	c.srv.serverChanged()
}

func (c *conn) attachedTo(id string) (*live, error) {
	c.mu.Lock()
	l := c.attached[id]
	c.mu.Unlock()
	if l == nil {
		return nil, protoErr(CodeInvalidRequest, fmt.Sprintf("Connection is not attached to session %s", id))
	}
	l.mu.Lock()
	gone := l.gone
	l.mu.Unlock()
	if gone {
		return nil, protoErr(CodeNotFound, "Session is not live: "+id)
	}
	return l, nil
}
