package provider

import "encoding/json"

// RoleSystem is pi's role for a message in the transcript that tells the model its tools
// changed (pi's declareToolChanges): toolsAdded holds the new tools' declarations ({name,
// description, parameters}), toolsRemoved the names of those gone; content is empty. The agent
// writes them; the session's conversion for the model turns each into a note it reads.
const RoleSystem Role = "system"

// ToolChanges is the system message that declares added and removed tools; empty lists are
// left out, as pi leaves them out.
func ToolChanges(added []ToolDef, removed []string, timestamp int64) Message {
	m := Message{Role: RoleSystem, Content: []Block{}, Timestamp: timestamp, Extra: map[string]json.RawMessage{}}
	if len(added) > 0 {
		m.Extra["toolsAdded"], _ = json.Marshal(added)
	}
	if len(removed) > 0 {
		m.Extra["toolsRemoved"], _ = json.Marshal(removed)
	}
	return m
}

// ToolsOf reads a system message's declarations back: what it added and removed.
func ToolsOf(m *Message) (added []ToolDef, removed []string) {
	if m.Role != RoleSystem {
		return nil, nil
	}
	json.Unmarshal(m.Extra["toolsAdded"], &added)
	json.Unmarshal(m.Extra["toolsRemoved"], &removed)
	return added, removed
}
