package remote

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"time"

	"pi/server"
	"pi/session"
	"pi/termui"
)

// sessions.go moves an attached terminal between sessions: /resume and /new attach to
// another session of pi serve (the one left goes on there).

// resumeChoices are the server's sessions and the session files in dir, but current, this
// folder's first, the latest first.
func resumeChoices(ctx context.Context, list []server.SessionMetadata, here, current, dir string) []termui.Resumable {
	files, _ := session.List(ctx, dir) // a folder that is not there (or the server's elsewhere) adds nothing
	byID := map[string]session.Info{}
	for _, in := range files {
		byID[in.ID] = in
	}
	var out []termui.Resumable
	parents := map[string]string{} // a session's id → the parent its metadata or header names
	add := func(id, name, cwd, parent string, updated time.Time) {
		if id == current || slices.ContainsFunc(out, func(r termui.Resumable) bool { return r.ID == id }) {
			return
		}
		parents[id] = parent
		r := termui.Resumable{Ref: id, ID: id, Name: name, Modified: updated}
		if in, ok := byID[id]; ok {
			r.FirstPrompt, r.Messages, r.Counted = in.FirstPrompt, in.MessageCount, true
		}
		if cwd != here {
			r.Cwd = cmp.Or(cwd, "?")
		}
		out = append(out, r)
	}
	for _, s := range list {
		add(s.ID, s.SessionName, s.Cwd, cmp.Or(s.ParentSessionID, byID[s.ID].ParentSession), time.UnixMilli(s.UpdatedAt))
	}
	for _, in := range files {
		add(in.ID, in.Name, in.Cwd, in.ParentSession, in.Modified)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].Cwd == "") != (out[j].Cwd == "") {
			return out[i].Cwd == ""
		}
		return out[i].Modified.After(out[j].Modified)
	})
	return threaded(out, parents)
}

// threaded puts each session right below the one it came from (a subagent's, a fork, a
// clone), marked, as the local /resume lists them.
func threaded(rs []termui.Resumable, parents map[string]string) []termui.Resumable {
	infos := make([]session.Info, len(rs))
	byID := make(map[string]termui.Resumable, len(rs))
	for i, r := range rs {
		infos[i], byID[r.ID] = session.Info{ID: r.ID, ParentSession: parents[r.ID]}, r
	}
	out := make([]termui.Resumable, 0, len(rs))
	for _, l := range session.Threaded(infos) {
		r := byID[l.ID]
		r.Mark = session.ThreadMark(l)
		out = append(out, r)
	}
	return out
}

// switchTo makes snap, a session this connection just attached to or created, the view's
// session, and detaches from the one left (whose run goes on in pi serve).
func (v *view) switchTo(snap *server.SessionSnapshot) termui.Switch {
	v.mu.Lock()
	old := v.id
	v.id, v.snap, v.partial, v.steer, v.followUps = snap.ID, snap, nil, nil, nil
	v.mu.Unlock()
	v.c.Detach(v.ctx, old)
	return termui.Switch{ID: snap.ID, Note: "left " + old + " in pi serve"}
}

func (v *view) sessionCwd() string {
	if s := v.current(); s != nil {
		return s.Cwd
	}
	return ""
}
