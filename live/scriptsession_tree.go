package live

// scriptsession_tree.go lets scripts read the session tree (lua.SessionTree): the bundled
// checkpoints script finds the file state of each point of it so. Kept apart from
// scriptsession.go so that it moves with it as one more method set.

import (
	"pi/lua"
	"pi/session"
)

func (x scriptSession) Leaf() string { return x.h.rec.session().Leaf() }

func (x scriptSession) Entries(leafID string) ([]lua.SessionEntry, error) {
	sess := x.h.rec.session()
	var es []session.Entry
	var err error
	if leafID == "" {
		es, err = sess.Entries()
	} else {
		es, err = sess.PathTo(leafID)
	}
	out := make([]lua.SessionEntry, 0, len(es))
	for _, e := range es {
		se := lua.SessionEntry{ID: e.ID, ParentID: e.ParentID, Type: string(e.Type), CustomType: e.CustomType, Data: e.Data}
		if e.Message != nil {
			se.Role = string(e.Message.Role)
		}
		out = append(out, se)
	}
	return out, err
}
