package provider

import "encoding/json"

// RoleSystem is pi's role for a message in the transcript that tells the model its tools
// changed (pi's declareToolChanges): toolsAdded holds the new tools' declarations ({name,
// description, parameters}), toolsRemoved references to those gone ({name}); content is the
// empty string. The agent writes them; the session's conversion for the model turns each into
// a note it reads.
const RoleSystem Role = "system"

// ToolChanges is the system message that declares added and removed tools; empty lists are
// left out, as pi leaves them out.
func ToolChanges(added []ToolDef, removed []string, timestamp int64) Message {
	m := Message{Role: RoleSystem, Content: []Block{Text("")}, StringContent: true, Timestamp: timestamp,
		Extra: map[string]json.RawMessage{}}
	if len(added) > 0 {
		m.Extra["toolsAdded"], _ = json.Marshal(added)
	}
	if len(removed) > 0 {
		refs := make([]toolRef, len(removed))
		for i, name := range removed {
			refs[i].Name = name
		}
		m.Extra["toolsRemoved"], _ = json.Marshal(refs)
	}
	return m
}

// toolRef is pi's reference to a tool by name, as toolsRemoved holds them.
type toolRef struct {
	Name string `json:"name"`
}

// ToolsOf reads a system message's declarations back: what it added and removed.
func ToolsOf(m *Message) (added []ToolDef, removed []string) {
	if m.Role != RoleSystem {
		return nil, nil
	}
	json.Unmarshal(m.Extra["toolsAdded"], &added)
	var refs []json.RawMessage
	json.Unmarshal(m.Extra["toolsRemoved"], &refs)
	for _, raw := range refs { // {name}, as pi writes them; a bare name is taken too
		var ref toolRef
		if json.Unmarshal(raw, &ref) != nil {
			json.Unmarshal(raw, &ref.Name)
		}
		if ref.Name != "" {
			removed = append(removed, ref.Name)
		}
	}
	return added, removed
}
