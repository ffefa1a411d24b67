package session

import "encoding/json"

// migrateEntries brings fully parsed entries of a v1 or v2 file to v3, in place:
//
//   - v1 files were a flat list: each entry gets a fresh id and its predecessor as parent, and a
//     compaction's firstKeptEntryIndex (a line index, the header being 0) becomes
//     firstKeptEntryId;
//   - v2 called extension messages "hookMessage"; v3 calls them "custom".
func migrateEntries(h *Header, nodes []node) {
	if h.Version < 2 {
		migrateV1(nodes)
	}
	for i := range nodes {
		if m := nodes[i].entry.Message; m != nil && m.Role == "hookMessage" {
			m.Role = RoleCustom
			nodes[i].role = string(RoleCustom)
		}
	}
	h.Version = CurrentVersion
}

func migrateV1(nodes []node) {
	taken := map[string]bool{}
	prev := ""
	for i := range nodes {
		e := nodes[i].entry
		e.ID = newEntryID(func(id string) bool { return taken[id] })
		taken[e.ID] = true
		e.ParentID = prev
		prev = e.ID
		nodes[i].id, nodes[i].up = e.ID, int32(i-1)
	}
	for i := range nodes {
		e := nodes[i].entry
		raw, ok := e.Extra["firstKeptEntryIndex"]
		if e.Type != TypeCompaction || !ok {
			continue
		}
		var idx int
		if json.Unmarshal(raw, &idx) == nil && idx >= 1 && idx <= len(nodes) {
			e.FirstKeptEntryID = nodes[idx-1].id
		}
		delete(e.Extra, "firstKeptEntryIndex")
	}
}
