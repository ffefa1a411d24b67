package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"pi/provider"
)

// CurrentVersion is the session format version this package writes.
const CurrentVersion = 3

// Type names an entry type, as pi spells it.
type Type string

const (
	TypeSession       Type = "session" // the header line, not an entry
	TypeMessage       Type = "message"
	TypeModelChange   Type = "model_change"
	TypeThinking      Type = "thinking_level_change"
	TypeCompaction    Type = "compaction"
	TypeBranchSummary Type = "branch_summary"
	TypeCustom        Type = "custom"
	TypeCustomMessage Type = "custom_message"
	TypeLabel         Type = "label"
	TypeSessionInfo   Type = "session_info"
)

// Header is the first line of a session file. It is not part of the tree.
type Header struct {
	Version       int    // 0 when the file did not say (version 1)
	ID            string // a UUID
	Timestamp     string // ISO-8601, as written
	Cwd           string
	ParentSession string // the file this one was forked or cloned from, if any

	Extra map[string]json.RawMessage // fields pi wrote that we do not know (v1 had several)
}

// Entry is one line of a session file after the header. Type decides which payload fields are
// meaningful; the others stay zero. Optional fields use pointers or nil raw JSON so that "absent"
// and "empty" stay distinct and a loaded entry is written back exactly as it was read.
//
// An Entry is immutable once appended: callers get copies and must not change Message in place.
type Entry struct {
	Type      Type
	ID        string // 8 hex digits
	ParentID  string // "" for a root (null in the file)
	Timestamp string // ISO-8601 UTC with milliseconds, kept as written

	Message *provider.Message // message

	Provider string // model_change
	ModelID  string // model_change

	ThinkingLevel string // thinking_level_change

	Summary          string          // compaction, branch_summary
	FirstKeptEntryID string          // compaction
	TokensBefore     int             // compaction
	FromID           string          // branch_summary: the leaf the user came back from, or "root"
	Details          json.RawMessage // compaction, branch_summary, custom_message (optional)
	FromHook         *bool           // compaction, branch_summary (optional)

	CustomType    string           // custom, custom_message
	Data          json.RawMessage  // custom (optional)
	Content       []provider.Block // custom_message
	StringContent bool             // custom_message: content was a plain string
	Display       bool             // custom_message

	TargetID string  // label
	Label    *string // label: nil clears the label
	Name     *string // session_info

	Extra map[string]json.RawMessage // fields of newer pi versions, written back after ours
}

// CompactionDetails is what pi stores in a compaction's details: the files the summarised part
// of the conversation read and modified, carried from one compaction to the next.
type CompactionDetails struct {
	ReadFiles     []string `json:"readFiles"`
	ModifiedFiles []string `json:"modifiedFiles"`
}

// MarshalJSON writes the header in pi's field order.
func (h Header) MarshalJSON() ([]byte, error) {
	w := newWriter()
	w.Field("type", TypeSession)
	if h.Version != 0 {
		w.Field("version", h.Version)
	}
	w.Field("id", h.ID)
	w.Field("timestamp", h.Timestamp)
	w.Field("cwd", h.Cwd)
	if h.ParentSession != "" {
		w.Field("parentSession", h.ParentSession)
	}
	w.Extra(h.Extra)
	return w.Close()
}

// UnmarshalJSON reads a header line; anything that is not one is an error.
func (h *Header) UnmarshalJSON(data []byte) error {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	var typ Type
	_ = decode(f, "type", &typ)
	if typ != TypeSession {
		return errors.New(`first line is not a session header (no "type":"session")`)
	}
	*h = Header{}
	if err := decodeAll(f, map[string]any{"version": &h.Version, "id": &h.ID,
		"timestamp": &h.Timestamp, "cwd": &h.Cwd, "parentSession": &h.ParentSession}); err != nil {
		return err
	}
	if h.ID == "" {
		return errors.New("session header has no id")
	}
	h.Extra = leftovers(f, "type", "version", "id", "timestamp", "cwd", "parentSession")
	return nil
}

// MarshalJSON writes the entry in the field order pi uses for its type.
func (e Entry) MarshalJSON() ([]byte, error) {
	w := newWriter()
	w.Field("type", e.Type)
	switch e.Type {
	case TypeCustom:
		w.Field("customType", e.CustomType)
		w.Raw("data", e.Data)
		e.writeBase(w)
	case TypeCustomMessage:
		w.Field("customType", e.CustomType)
		w.content(e.Content, e.StringContent)
		w.Field("display", e.Display)
		w.Raw("details", e.Details)
		e.writeBase(w)
	default:
		e.writeBase(w)
		e.writePayload(w)
	}
	w.Extra(e.Extra)
	return w.Close()
}

func (e *Entry) writeBase(w *writer) {
	w.Field("id", e.ID)
	if e.ParentID == "" {
		w.Raw("parentId", json.RawMessage("null"))
	} else {
		w.Field("parentId", e.ParentID)
	}
	w.Field("timestamp", e.Timestamp)
}

func (e *Entry) writePayload(w *writer) {
	switch e.Type {
	case TypeMessage:
		w.message(e.Message)
	case TypeModelChange:
		w.Field("provider", e.Provider)
		w.Field("modelId", e.ModelID)
	case TypeThinking:
		w.Field("thinkingLevel", e.ThinkingLevel)
	case TypeCompaction:
		w.Field("summary", e.Summary)
		w.Field("firstKeptEntryId", e.FirstKeptEntryID)
		w.Field("tokensBefore", e.TokensBefore)
		w.Raw("details", e.Details)
		w.optBool("fromHook", e.FromHook)
	case TypeBranchSummary:
		w.Field("fromId", e.FromID)
		w.Field("summary", e.Summary)
		w.Raw("details", e.Details)
		w.optBool("fromHook", e.FromHook)
	case TypeLabel:
		w.Field("targetId", e.TargetID)
		w.optString("label", e.Label)
	case TypeSessionInfo:
		w.optString("name", e.Name)
	}
}

// payloadFields lists the payload fields a type understands; the rest go to Extra.
func payloadFields(t Type) []string {
	switch t {
	case TypeMessage:
		return []string{"message"}
	case TypeModelChange:
		return []string{"provider", "modelId"}
	case TypeThinking:
		return []string{"thinkingLevel"}
	case TypeCompaction:
		return []string{"summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"}
	case TypeBranchSummary:
		return []string{"fromId", "summary", "details", "fromHook"}
	case TypeCustom:
		return []string{"customType", "data"}
	case TypeCustomMessage:
		return []string{"customType", "content", "display", "details"}
	case TypeLabel:
		return []string{"targetId", "label"}
	case TypeSessionInfo:
		return []string{"name"}
	}
	return nil
}

// UnmarshalJSON reads an entry of any type; unknown types keep their payload in Extra. Lines
// of the usual shapes go through a single-pass decoder (see fastEntry); anything it does not
// recognise goes through encoding/json, which is the reference for what a line means.
func (e *Entry) UnmarshalJSON(data []byte) error {
	if fastEntry(data, e) {
		return nil
	}
	return e.slowUnmarshal(data)
}

func (e *Entry) slowUnmarshal(data []byte) error {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*e = Entry{}
	if err := decodeAll(f, map[string]any{"type": &e.Type, "id": &e.ID, "parentId": &e.ParentID,
		"timestamp": &e.Timestamp}); err != nil {
		return err
	}
	if e.Type == "" || e.Type == TypeSession {
		return fmt.Errorf("not an entry (type %q)", e.Type)
	}
	for _, k := range payloadFields(e.Type) {
		if raw, ok := f[k]; ok {
			if err := e.setPayload(k, raw); err != nil {
				return fmt.Errorf("%s entry %s: %w", e.Type, e.ID, err)
			}
		}
	}
	e.Extra = leftovers(f, append([]string{"type", "id", "parentId", "timestamp"}, payloadFields(e.Type)...)...)
	return nil
}

// setPayload decodes one payload field of the entry's type. null leaves a field unset.
func (e *Entry) setPayload(k string, raw json.RawMessage) error {
	switch k {
	case "details":
		e.Details = raw
		return nil
	case "data":
		e.Data = raw
		return nil
	}
	if isNullRaw(raw) {
		return nil
	}
	switch k {
	case "message":
		e.Message = new(provider.Message)
		return e.Message.UnmarshalJSON(raw)
	case "content":
		var err error
		e.Content, e.StringContent, err = decodeContent(raw)
		return err
	case "label":
		return jsonField(k, raw, &e.Label)
	case "name":
		return jsonField(k, raw, &e.Name)
	case "tokensBefore":
		return jsonField(k, raw, &e.TokensBefore)
	case "fromHook":
		return jsonField(k, raw, &e.FromHook)
	case "display":
		return jsonField(k, raw, &e.Display)
	}
	if dst := e.stringField(k); dst != nil {
		return jsonField(k, raw, dst)
	}
	return nil
}

// stringField returns the string payload field named k, or nil.
func (e *Entry) stringField(k string) *string {
	switch k {
	case "provider":
		return &e.Provider
	case "modelId":
		return &e.ModelID
	case "thinkingLevel":
		return &e.ThinkingLevel
	case "summary":
		return &e.Summary
	case "firstKeptEntryId":
		return &e.FirstKeptEntryID
	case "fromId":
		return &e.FromID
	case "customType":
		return &e.CustomType
	case "targetId":
		return &e.TargetID
	}
	return nil
}

func jsonField(name string, raw json.RawMessage, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("field %q: %w", name, err)
	}
	return nil
}

func isNullRaw(raw []byte) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// decodeContent reads content that is either a string or an array of blocks.
func decodeContent(raw json.RawMessage) ([]provider.Block, bool, error) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, fmt.Errorf("content: %w", err)
		}
		return []provider.Block{provider.Text(s)}, true, nil
	}
	var blocks []provider.Block
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, false, fmt.Errorf("content: %w", err)
	}
	return blocks, false, nil
}

func decode(f map[string]json.RawMessage, name string, dst any) error {
	raw, ok := f[name]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("field %q: %w", name, err)
	}
	return nil
}

func decodeAll(f map[string]json.RawMessage, dsts map[string]any) error {
	for name, dst := range dsts {
		if err := decode(f, name, dst); err != nil {
			return err
		}
	}
	return nil
}

func rawField(f map[string]json.RawMessage, name string) json.RawMessage {
	raw, ok := f[name]
	if !ok {
		return nil
	}
	return raw
}

func leftovers(f map[string]json.RawMessage, known ...string) map[string]json.RawMessage {
	var extra map[string]json.RawMessage
outer:
	for k, v := range f {
		for _, n := range known {
			if k == n {
				continue outer
			}
		}
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[k] = v
	}
	return extra
}

// writer is provider's ordered object writer plus the shapes session entries need.
type writer struct{ *provider.ObjectWriter }

func newWriter() *writer { return &writer{provider.NewObjectWriter()} }

func (w *writer) optBool(name string, v *bool) {
	if v != nil {
		w.Field(name, *v)
	}
}

func (w *writer) optString(name string, v *string) {
	if v != nil {
		w.Field(name, *v)
	}
}

func (w *writer) content(blocks []provider.Block, asString bool) {
	if asString && len(blocks) == 1 && blocks[0].Type == provider.BlockText {
		w.Field("content", blocks[0].Text)
		return
	}
	if blocks == nil {
		blocks = []provider.Block{}
	}
	w.Field("content", blocks)
}

func (w *writer) message(m *provider.Message) {
	if w.Err() != nil {
		return
	}
	if m == nil {
		w.Fail(errors.New("message entry without a message"))
		return
	}
	data, err := marshalMessage(m)
	if err != nil {
		w.Fail(err)
		return
	}
	w.Raw("message", data)
}

// appRoleOrder is the field order pi uses for the application messages it stores in message
// entries. provider.Message writes unknown fields sorted, which is valid JSON but would make a
// re-written pi file differ from the original.
func appRoleOrder(r provider.Role) []string {
	switch r {
	case RoleCustom:
		return []string{"customType", "content", "display", "details", "timestamp"}
	case RoleBashExecution:
		return []string{"command", "output", "exitCode", "cancelled", "truncated", "fullOutputPath",
			"timestamp", "excludeFromContext"}
	}
	return nil
}

func marshalMessage(m *provider.Message) ([]byte, error) {
	order := appRoleOrder(m.Role)
	if order == nil {
		data, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("message (%s): %w", m.Role, err)
		}
		return data, nil
	}
	w := newWriter()
	w.Field("role", m.Role)
	done := map[string]bool{}
	for _, k := range order {
		done[k] = true
		switch k {
		case "content":
			if m.Content != nil {
				w.content(m.Content, m.StringContent)
			}
		case "details":
			if len(m.Details) > 0 {
				w.Raw(k, m.Details)
			}
		case "timestamp":
			if m.Timestamp != 0 {
				w.Field(k, m.Timestamp)
			}
		default:
			if v, ok := m.Extra[k]; ok {
				w.Raw(k, v)
			}
		}
	}
	rest := map[string]json.RawMessage{}
	for k, v := range m.Extra {
		if !done[k] {
			rest[k] = v
		}
	}
	w.Extra(rest)
	return w.Close()
}

// encodeLine renders v as one line of the file, escaped the way JSON.stringify escapes, with
// the trailing newline.
func encodeLine(v json.Marshaler) ([]byte, error) {
	data, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	data = jsEscape(data)
	return append(data, '\n'), nil
}

// jsEscape undoes the escapes encoding/json adds and JSON.stringify does not (\u003c, \u003e,
// \u0026, \u2028, \u2029), so our lines match pi's byte for byte. It walks escape sequences
// from the start, so a literal backslash followed by "u003c" is never mistaken for one.
func jsEscape(data []byte) []byte {
	if bytes.IndexByte(data, '\\') < 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c != '\\' || i+1 >= len(data) {
			out = append(out, c)
			continue
		}
		if data[i+1] == 'u' && i+6 <= len(data) {
			if r := unescapeJS(data[i+2 : i+6]); r != "" {
				out = append(out, r...)
				i += 5
				continue
			}
		}
		out = append(out, c, data[i+1])
		i++
	}
	return out
}

func unescapeJS(hex []byte) string {
	switch string(hex) {
	case "003c":
		return "<"
	case "003e":
		return ">"
	case "0026":
		return "&"
	case "2028":
		return "\u2028"
	case "2029":
		return "\u2029"
	}
	return ""
}
