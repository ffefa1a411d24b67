package lua

// session_entries.go is pi.session_leaf and pi.session_entries: what a script reads of the
// session tree, so that its custom entries mean something when the session is opened again
// (-c, --fork, pi attach) or the leaf moves (/tree). The checkpoints script finds the file
// state of each point of the tree so.

import (
	"encoding/json"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// SessionEntry is one entry of the session file as scripts see it.
type SessionEntry struct {
	ID, ParentID string
	Type         string          // pi's entry types: message, custom, label, …
	Role         string          // message: user, assistant, toolResult, custom
	CustomType   string          // custom, custom_message
	Data         json.RawMessage // custom
}

// SessionTree is what a Session may offer of its tree; pi.session_entries is empty and
// pi.session_leaf nil where the Session lacks it.
type SessionTree interface {
	Leaf() string // the current leaf's id, "" before the first entry
	// Entries lists the path from the root to leafID (the whole file, in file order, when
	// leafID is "").
	Entries(leafID string) ([]SessionEntry, error)
}

func (v *vm) sessionTree() SessionTree {
	t, _ := v.sess().(SessionTree)
	return t
}

// sessionLeaf is pi.session_leaf() → the leaf's id, or nil.
func (v *vm) sessionLeaf(L *lua.LState) int {
	if t := v.sessionTree(); t != nil && t.Leaf() != "" {
		L.Push(lua.LString(t.Leaf()))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// sessionEntries is pi.session_entries({leaf?, all?, custom_type?}) → {{id, parent_id, type,
// role?, custom_type?, data?}}: the path from the root to leaf (default the current leaf), or
// with all = true every entry of the file; custom_type keeps only custom entries of that type.
func (v *vm) sessionEntries(L *lua.LState) int {
	opts := L.OptTable(1, L.NewTable())
	tree := v.sessionTree()
	if tree == nil {
		L.Push(L.NewTable())
		return 1
	}
	leaf := optString(L, opts, "leaf")
	if leaf == "" && !lua.LVAsBool(opts.RawGetString("all")) {
		if leaf = tree.Leaf(); leaf == "" {
			L.Push(L.NewTable())
			return 1
		}
	}
	want := optString(L, opts, "custom_type")
	es, err := tree.Entries(leaf)
	if err != nil {
		return v.ok(L, fmt.Errorf("pi.session_entries: %w", err))
	}
	out := L.NewTable()
	for _, e := range es {
		if want != "" && (e.Type != "custom" || e.CustomType != want) {
			continue
		}
		t := L.NewTable()
		t.RawSetString("id", lua.LString(e.ID))
		t.RawSetString("parent_id", lua.LString(e.ParentID))
		t.RawSetString("type", lua.LString(e.Type))
		for k, s := range map[string]string{"role": e.Role, "custom_type": e.CustomType} {
			if s != "" {
				t.RawSetString(k, lua.LString(s))
			}
		}
		if len(e.Data) > 0 {
			t.RawSetString("data", v.toLua(e.Data))
		}
		out.Append(t)
	}
	L.Push(out)
	return 1
}
