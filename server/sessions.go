package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pi/session"
)

// sessions.go is the live-session manager: at most one runtime per session, opened on the
// first attach (concurrent attaches share the open) and disposed as soon as no client is
// attached, no command is in flight and the session is idle. A run keeps going after every
// client has gone; the session is disposed when it ends.

// acquire returns the live session id, opening it if need be.
func (s *Server) acquire(ctx context.Context, id string) (*live, error) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil, protoErr(CodeSessionLocked, "The server is stopping")
	}
	if l := s.sessions[id]; l != nil {
		s.mu.Unlock()
		return l, nil
	}
	if o := s.opening[id]; o != nil {
		s.mu.Unlock()
		<-o.done
		return o.l, o.err
	}
	o := &opening{done: make(chan struct{})}
	s.opening[id] = o
	s.mu.Unlock()
	o.l, o.err = s.open(ctx, id)
	s.mu.Lock()
	delete(s.opening, id)
	if o.err == nil {
		s.sessions[id] = o.l
		o.l.mu.Lock()
		o.l.revision = s.revisions[id] + 1
		o.l.mu.Unlock()
	}
	s.mu.Unlock()
	close(o.done)
	var pe *Error
	if errors.As(o.err, &pe) && pe.Code == CodeNotFound && s.forgetStored(id) {
		s.sessionRemoved(id, nil) // listed, but its file has gone
		s.serverChanged()
	}
	return o.l, o.err
}

// resolveID is the session a client named by its id or a unique prefix of it (session's one
// rule, session.MatchID), among the live sessions, the listed ones and, for a session stored
// since the list was read, the store itself.
func (s *Server) resolveID(ctx context.Context, ref string) (string, error) {
	s.mu.Lock()
	ids := make([]string, 0, len(s.sessions)+len(s.opening)+len(s.paths))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	for id := range s.opening {
		ids = append(ids, id)
	}
	for id := range s.paths {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	id, err := session.MatchID(ref, ids)
	var amb *session.AmbiguousError
	if errors.As(err, &amb) {
		return "", protoErr(CodeInvalidRequest, amb.Error())
	}
	if err == nil {
		return id, nil
	}
	in, err := s.opts.Store.Describe(ctx, ref)
	if errors.As(err, &amb) {
		return "", protoErr(CodeInvalidRequest, amb.Error())
	}
	if err != nil {
		return "", openError(ref, err)
	}
	s.noteStored(in)
	return in.ID, nil
}

// open opens a runtime on the stored session id, found where the list has it (else asked of
// the store).
func (s *Server) open(ctx context.Context, id string) (*live, error) {
	s.mu.Lock()
	path, cwd := s.paths[id], ""
	if i := slices.IndexFunc(s.stored, func(m SessionMetadata) bool { return m.ID == id }); i >= 0 {
		cwd = s.stored[i].Cwd
	}
	s.mu.Unlock()
	if path == "" {
		in, err := s.opts.Store.Describe(ctx, id)
		if err != nil {
			return nil, openError(id, err)
		}
		path, cwd = in.Path, in.Cwd
	}
	rt, err := s.opts.Open(ctx, OpenRequest{Path: path, Cwd: cwd})
	if err != nil {
		return nil, openError(id, err)
	}
	if got := rt.Info().ID; got != id {
		rt.Close()
		return nil, protoErr(CodeInvalidRequest, fmt.Sprintf("Session %s resolved to session %s", id, got))
	}
	return newLive(s, rt), nil
}

func openError(id string, err error) error {
	var pe *Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, session.ErrLocked):
		return protoErr(CodeSessionLocked, "Session "+id+" is open in another pi process")
	case errors.Is(err, os.ErrNotExist):
		return protoErr(CodeNotFound, "Session not found: "+id)
	}
	return protoErr(CodeInternal, fmt.Sprintf("Opening session %s: %v", id, err))
}

// create starts a new session.
func (s *Server) create(ctx context.Context, c command) (*live, error) {
	req := OpenRequest{Cwd: c.Cwd, Name: c.Title, Thinking: c.Thinking}
	if c.Model != nil {
		req.Model = c.Model.Provider + "/" + c.Model.ID
	}
	rt, err := s.opts.Open(ctx, req)
	if err != nil {
		return nil, openError("(new)", err)
	}
	l := newLive(s, rt)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		rt.Close()
		return nil, protoErr(CodeSessionLocked, "The server is stopping")
	}
	s.sessions[l.id] = l
	return l, nil
}

// maybeDispose closes a live session nobody needs: no client, no command in flight, idle.
func (s *Server) maybeDispose(l *live) {
	l.mu.Lock()
	idle := !l.gone && len(l.conns) == 0 && l.ops == 0 && l.phase == "idle" && !l.ag.IsRunning()
	l.mu.Unlock()
	s.mu.Lock()
	stopping := s.closing
	s.mu.Unlock()
	if idle && !stopping {
		s.dispose(l)
		s.serverChanged()
	}
}

// dispose closes a live session's runtime and forgets it.
func (s *Server) dispose(l *live) {
	l.mu.Lock()
	if l.gone {
		l.mu.Unlock()
		return
	}
	l.gone = true
	rev := l.revision
	l.mu.Unlock()
	l.unsub()
	l.ui.Close()
	l.rt.Close()
	s.mu.Lock()
	if s.sessions[l.id] == l {
		delete(s.sessions, l.id)
	}
	s.revisions[l.id] = rev
	s.mu.Unlock()
	s.sessionRemoved(l.id, nil)
	s.refreshOne(context.Background(), l.id)
}

// sessionRemoved tells every client that a session is no longer live (upstream's client then
// drops its cached snapshot and its attachment), when it has been disposed or its file has
// gone. A session disposed with its file still there stays in the list and can be attached
// again. The clients in keep are not told (pi's clients that followed a re-keyed session).
func (s *Server) sessionRemoved(id string, keep map[*conn]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return
	}
	f := s.encode(&eventEnvelope{Type: "event", Event: &Event{Type: "session_removed", SessionID: id}})
	for c := range s.conns {
		if !keep[c] {
			c.sendEvent(f, false)
		}
	}
}

// refreshOne reads one session's metadata again from the store, after its session was closed.
func (s *Server) refreshOne(ctx context.Context, id string) {
	in, err := s.opts.Store.Describe(ctx, id)
	if errors.Is(err, fs.ErrNotExist) {
		s.forgetStored(id) // a new session that never got a reply is not stored, or it was removed
		return
	}
	if err != nil {
		fmt.Fprintln(s.opts.Log, "pi serve: listing sessions:", err)
		return
	}
	s.noteStored(in)
}

// noteStored puts a stored session on the list, or updates its row.
func (s *Server) noteStored(in session.Info) {
	m := metadataOf(in)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paths[m.ID] = in.Path
	for i := range s.stored {
		if s.stored[i].ID == m.ID {
			s.stored[i] = m
			return
		}
	}
	s.stored = append(s.stored, m)
}

// forgetStored takes a session whose file is gone off the list; false if it was not on it.
func (s *Server) forgetStored(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.stored)
	delete(s.paths, id)
	s.stored = slices.DeleteFunc(s.stored, func(m SessionMetadata) bool { return m.ID == id })
	return len(s.stored) < n
}

func metadataOf(in session.Info) SessionMetadata {
	return SessionMetadata{ID: orUnknown(in.ID), CreatedAt: nonNegative(in.Created.UnixMilli()),
		UpdatedAt: nonNegative(in.Modified.UnixMilli()), ParentSessionID: parentID(in.ParentSession),
		SessionName: in.Name, Cwd: in.Cwd}
}

// refreshStored reads every stored session's metadata for lists, when the server starts: one
// query of a database store, a read of every file of the JSONL store.
func (s *Server) refreshStored(ctx context.Context) {
	infos, err := s.opts.Store.List(ctx, "")
	if err != nil {
		fmt.Fprintln(s.opts.Log, "pi serve: listing sessions:", err)
	}
	out := make([]SessionMetadata, 0, len(infos))
	paths := make(map[string]string, len(infos))
	for _, in := range infos {
		out = append(out, metadataOf(in))
		paths[orUnknown(in.ID)] = in.Path
	}
	s.mu.Lock()
	s.stored, s.paths = out, paths
	s.mu.Unlock()
}

// pruneStored takes the sessions whose files have gone while they were not live off the
// list, telling every client session_removed; list and hello call it, so a deleted file
// leaves the next list without a periodic scan. It costs a stat per session file; a session
// a database keeps is found gone only when it is opened.
func (s *Server) pruneStored() {
	s.mu.Lock()
	files := make(map[string]string, len(s.paths))
	for id, path := range s.paths {
		if s.sessions[id] == nil && s.opening[id] == nil && strings.HasSuffix(path, ".jsonl") {
			files[id] = path
		}
	}
	s.mu.Unlock()
	gone := false
	for id, path := range files {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && s.forgetStored(id) {
			s.sessionRemoved(id, nil)
			gone = true
		}
	}
	if gone {
		s.serverChanged()
	}
}

// parentID is the id in a parent session reference: pi stores the parent's path, a file
// named <time>_<id>.jsonl, or a database store's <database>#<id>.
func parentID(ref string) string {
	if ref == "" {
		return ""
	}
	if _, id, ok := cutLast(ref, "#"); ok && !strings.HasSuffix(ref, ".jsonl") {
		return id
	}
	base := filepath.Base(ref)
	base = base[:len(base)-len(filepath.Ext(base))]
	if _, id, ok := cutLast(base, "_"); ok {
		return id
	}
	return base
}

func cutLast(s, sep string) (before, after string, ok bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// listLocked is the stored sessions overlaid with the live ones, which may not be stored yet.
func (s *Server) listLocked() []SessionMetadata {
	out := make([]SessionMetadata, 0, len(s.stored)+len(s.sessions))
	seen := map[string]bool{}
	for _, m := range s.stored {
		if l := s.sessions[m.ID]; l != nil {
			m = l.metadata()
		}
		seen[m.ID] = true
		out = append(out, m)
	}
	for id, l := range s.sessions {
		if !seen[id] {
			out = append(out, l.metadata())
		}
	}
	return out
}

func (l *live) metadata() SessionMetadata {
	l.mu.Lock()
	defer l.mu.Unlock()
	return SessionMetadata{ID: l.id, CreatedAt: l.info.createdAt(), UpdatedAt: l.updatedAt,
		SessionName: l.info.Name, Cwd: l.info.Cwd}
}
