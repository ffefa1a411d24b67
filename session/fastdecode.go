package session

import (
	"encoding/json"

	"pi/provider"
)

// fastEntry decodes a line into e with the single-pass decoder. It reports false, leaving e in
// any state, when the line needs encoding/json.
func fastEntry(data []byte, e *Entry) bool {
	var arr [16]field
	fields, ok := objectFields(data, arr[:0])
	if !ok {
		return false
	}
	*e = Entry{}
	for _, f := range fields {
		var dst *string
		switch string(f.key) {
		case "type":
			var t string
			if !setString(f.val, &t) {
				return false
			}
			e.Type = internType(t)
			continue
		case "id":
			dst = &e.ID
		case "parentId":
			dst = &e.ParentID
		case "timestamp":
			dst = &e.Timestamp
		default:
			continue
		}
		if !setString(f.val, dst) {
			return false
		}
	}
	if e.Type == "" || e.Type == TypeSession {
		return false
	}
	payload := payloadFields(e.Type)
	for _, f := range fields {
		switch {
		case isBaseKey(f.key):
		case inList(payload, f.key):
			if !e.fastPayload(string(f.key), f.val) {
				return false
			}
		default:
			raw, ok := rawCopy(f.val)
			if !ok {
				return false
			}
			if e.Extra == nil {
				e.Extra = map[string]json.RawMessage{}
			}
			e.Extra[string(f.key)] = raw
		}
	}
	return true
}

func inList(list []string, s []byte) bool {
	for _, x := range list {
		if x == string(s) {
			return true
		}
	}
	return false
}

func isBaseKey(k []byte) bool {
	switch string(k) {
	case "type", "id", "parentId", "timestamp":
		return true
	}
	return false
}

func (e *Entry) fastPayload(k string, v []byte) bool {
	switch k {
	case "message":
		if isNullVal(v) {
			return true
		}
		m, ok := fastMessage(v)
		e.Message = m
		return ok
	case "content":
		if isNullVal(v) {
			return true
		}
		if v[0] == '"' {
			s, ok := decString(v)
			e.Content, e.StringContent = []provider.Block{provider.Text(s)}, true
			return ok
		}
		blocks, ok := fastBlocks(v)
		e.Content = blocks
		return ok
	case "label", "name":
		return e.setPayload(k, v) == nil // small: encoding/json is fine
	case "details", "data":
		raw, ok := rawCopy(v)
		if ok {
			return e.setPayload(k, raw) == nil
		}
		return false
	case "tokensBefore":
		var n int64
		ok := setInt64(v, &n)
		e.TokensBefore = int(n)
		return ok && int64(e.TokensBefore) == n
	case "fromHook":
		if isNullVal(v) {
			return true
		}
		var b bool
		e.FromHook = &b
		return setBool(v, &b)
	case "display":
		return setBool(v, &e.Display)
	}
	if dst := e.stringField(k); dst != nil {
		return setString(v, dst)
	}
	return false
}

// fastMessage mirrors provider.Message.UnmarshalJSON.
func fastMessage(v []byte) (*provider.Message, bool) {
	var arr [16]field
	fields, ok := objectFields(v, arr[:0])
	if !ok {
		return nil, false
	}
	m := &provider.Message{}
	for _, f := range fields {
		if !setMessageField(m, f) {
			return nil, false
		}
	}
	return m, true
}

func setMessageField(m *provider.Message, f field) bool {
	if dst := messageString(m, string(f.key)); dst != nil {
		return setString(f.val, dst)
	}
	switch string(f.key) {
	case "role":
		var r string
		ok := setString(f.val, &r)
		m.Role = provider.Role(r)
		return ok
	case "stopReason":
		var r string
		ok := setString(f.val, &r)
		m.StopReason = provider.StopReason(r)
		return ok
	case "content":
		if isNullVal(f.val) {
			return true
		}
		if f.val[0] == '"' {
			s, ok := decString(f.val)
			m.Content, m.StringContent = []provider.Block{provider.Text(s)}, true
			return ok
		}
		blocks, ok := fastBlocks(f.val)
		m.Content = blocks
		return ok
	case "usage":
		if isNullVal(f.val) {
			return true
		}
		m.Usage = new(provider.Usage)
		return fastUsage(f.val, m.Usage)
	case "isError":
		return setBool(f.val, &m.IsError)
	case "timestamp":
		return setInt64(f.val, &m.Timestamp)
	case "details":
		raw, ok := rawCopy(f.val)
		m.Details = raw
		return ok
	}
	raw, ok := rawCopy(f.val)
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[string(f.key)] = raw
	return ok
}

func messageString(m *provider.Message, k string) *string {
	switch k {
	case "api":
		return &m.API
	case "provider":
		return &m.Provider
	case "model":
		return &m.Model
	case "responseId":
		return &m.ResponseID
	case "errorMessage":
		return &m.ErrorMessage
	case "toolCallId":
		return &m.ToolCallID
	case "toolName":
		return &m.ToolName
	}
	return nil
}

// fastBlocks mirrors decoding []provider.Block.
func fastBlocks(v []byte) ([]provider.Block, bool) {
	elems, ok := arrayElems(v)
	if !ok {
		return nil, false
	}
	out := make([]provider.Block, len(elems))
	for i, el := range elems {
		if !fastBlock(el, &out[i]) {
			return nil, false
		}
	}
	return out, true
}

// fastBlock mirrors provider.Block.UnmarshalJSON. Keys it does not know make it give up, since
// encoding/json would match them to fields case-insensitively.
func fastBlock(v []byte, b *provider.Block) bool {
	var arr [8]field
	fields, ok := objectFields(v, arr[:0])
	if !ok {
		return false
	}
	var args []byte
	for _, f := range fields {
		switch string(f.key) {
		case "redacted":
			ok = setBool(f.val, &b.Redacted)
		case "arguments":
			args = f.val
			ok = json.Valid(args)
		default:
			dst := blockString(b, string(f.key))
			ok = dst != nil && setString(f.val, dst)
		}
		if !ok {
			return false
		}
	}
	switch b.Type {
	case provider.BlockText, provider.BlockThinking, provider.BlockImage:
		return true
	case provider.BlockToolCall:
		b.Arguments = map[string]any{}
		return args == nil || isNullVal(args) || json.Unmarshal(args, &b.Arguments) == nil
	}
	return false
}

func blockString(b *provider.Block, k string) *string {
	switch k {
	case "type":
		return &b.Type
	case "text":
		return &b.Text
	case "textSignature":
		return &b.TextSignature
	case "thinking":
		return &b.Thinking
	case "thinkingSignature":
		return &b.ThinkingSignature
	case "data":
		return &b.Data
	case "mimeType":
		return &b.MimeType
	case "id":
		return &b.ID
	case "name":
		return &b.Name
	case "thoughtSignature":
		return &b.ThoughtSignature
	}
	return nil
}

// fastUsage mirrors decoding provider.Usage with encoding/json, for the keys pi writes. Any
// other key makes it give up, since encoding/json would match it case-insensitively.
func fastUsage(v []byte, u *provider.Usage) bool {
	var arr [8]field
	fields, ok := objectFields(v, arr[:0])
	if !ok {
		return false
	}
	for _, f := range fields {
		switch string(f.key) {
		case "input":
			ok = setInt(f.val, &u.Input)
		case "output":
			ok = setInt(f.val, &u.Output)
		case "cacheRead":
			ok = setInt(f.val, &u.CacheRead)
		case "cacheWrite":
			ok = setInt(f.val, &u.CacheWrite)
		case "totalTokens":
			ok = setInt(f.val, &u.TotalTokens)
		case "cost":
			ok = isNullVal(f.val) || fastCost(f.val, &u.Cost)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

func fastCost(v []byte, c *provider.Cost) bool {
	var arr [8]field
	fields, ok := objectFields(v, arr[:0])
	if !ok {
		return false
	}
	for _, f := range fields {
		var dst *float64
		switch string(f.key) {
		case "input":
			dst = &c.Input
		case "output":
			dst = &c.Output
		case "cacheRead":
			dst = &c.CacheRead
		case "cacheWrite":
			dst = &c.CacheWrite
		case "total":
			dst = &c.Total
		default:
			return false
		}
		if !setFloat(f.val, dst) {
			return false
		}
	}
	return true
}
