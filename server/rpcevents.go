package server

import "sync/atomic"

// rpcevents.go turns protocol events back into pi's agent events for the RPC bridge: the
// transcript items become pi messages, progress becomes message_* and tool_execution_*,
// phase changes in snapshots become agent_start and agent_end.

// eventState is what translation remembers: the phase, the reply being streamed.
type eventState struct {
	phase   string
	partial map[string]any // the streaming reply as a pi message

	// As agent.UpdateGate: message_update carries the partial reply only when it has grown by
	// half since the last time (the first one too), unless full (set_full_updates).
	full        atomic.Bool
	grown, next int
}

type object = map[string]any

// minSnapshotStep is the least growth of a reply between two snapshots, as agent's.
const minSnapshotStep = 1 << 10

func (e *eventState) translate(ev object, id string) []object {
	switch ev["type"] {
	case "session_snapshot":
		snap, _ := ev["snapshot"].(object)
		if snap["id"] != id {
			return nil
		}
		return e.phaseChange(snap["phase"])
	case "session_progress":
		if ev["sessionId"] != id {
			return nil
		}
		p, _ := ev["progress"].(object)
		return e.progress(p)
	}
	return nil
}

func (e *eventState) phaseChange(phase any) []object {
	p, _ := phase.(string)
	was := e.phase
	e.phase = p
	switch {
	case was == "idle" && p != "idle":
		return []object{{"type": "agent_start"}}
	case was != "idle" && p == "idle":
		return []object{{"type": "agent_end", "messages": []any{}}}
	}
	return nil
}

func (e *eventState) progress(p object) []object {
	item, _ := p["item"].(object)
	switch p["type"] {
	case "item_started":
		return e.started(item)
	case "item_updated":
		if item["role"] == "assistant" && e.partial != nil {
			parts, _ := item["content"].([]any)
			old, _ := e.partial["content"].([]any)
			e.partial = messageOf(item)
			if len(parts) > len(old) {
				kind := partKind(parts[len(parts)-1])
				return []object{e.update(object{"type": kind + "_start", "contentIndex": len(parts) - 1})}
			}
		}
	case "assistant_delta":
		return e.delta(p)
	case "item_finished":
		return e.finished(item)
	}
	return nil
}

func (e *eventState) started(item object) []object {
	switch item["role"] {
	case "user":
		m := messageOf(item)
		return []object{{"type": "message_start", "message": m}, {"type": "message_end", "message": m}}
	case "assistant":
		e.partial = messageOf(item)
		e.grown, e.next = 0, 0
		return []object{{"type": "message_start", "message": e.partial}}
	case "tool":
		return []object{{"type": "tool_execution_start", "toolCallId": item["toolCallId"], "toolName": item["toolName"],
			"args": item["input"]}}
	}
	return nil
}

func (e *eventState) delta(p object) []object {
	if e.partial == nil {
		return nil
	}
	i, _ := p["contentIndex"].(int64)
	parts, _ := e.partial["content"].([]any)
	kind, _ := p["kind"].(string)
	delta, _ := p["delta"].(string)
	if int(i) < len(parts) {
		if part, _ := parts[i].(object); part != nil {
			switch kind {
			case "text":
				part["text"] = str(part["text"]) + delta
			case "thinking":
				part["thinking"] = str(part["thinking"]) + delta
			}
		}
	}
	if kind == "toolCall" {
		kind = "toolcall"
	}
	e.grown += len(delta)
	return []object{e.update(object{"type": kind + "_delta", "contentIndex": i, "delta": delta})}
}

func (e *eventState) update(ame object) object {
	if e.full.Load() {
		ame["partial"] = e.partial
		return object{"type": "message_update", "message": e.partial, "assistantMessageEvent": ame}
	}
	up := object{"type": "message_update", "assistantMessageEvent": ame}
	if e.grown >= e.next {
		up["message"] = e.partial
		e.next = e.grown + max(e.grown/2, minSnapshotStep)
	}
	return up
}

func (e *eventState) finished(item object) []object {
	m := messageOf(item)
	switch item["role"] {
	case "assistant":
		e.partial = nil
		return []object{{"type": "message_end", "message": m}}
	case "tool":
		res := object{"content": m["content"]}
		if d, ok := item["details"]; ok {
			res["details"] = d
		}
		return []object{{"type": "tool_execution_end", "toolCallId": item["toolCallId"], "toolName": item["toolName"],
			"result": res, "isError": item["isError"]},
			{"type": "message_start", "message": m}, {"type": "message_end", "message": m}}
	}
	return nil
}

// messageOf is one transcript item as a pi message (a fresh copy).
func messageOf(item object) object {
	var content []any
	parts, _ := item["content"].([]any)
	for _, p := range parts {
		part, _ := p.(object)
		c := object{}
		for k, v := range part {
			c[k] = v
		}
		if part["type"] == "toolCall" {
			c = object{"type": "toolCall", "id": part["toolCallId"], "name": part["toolName"], "arguments": part["input"]}
		}
		content = append(content, c)
	}
	if content == nil {
		content = []any{}
	}
	m := object{"role": item["role"], "content": content, "timestamp": item["timestamp"]}
	switch item["role"] {
	case "assistant":
		model, _ := item["model"].(object)
		m["provider"], m["model"] = model["provider"], model["id"]
		m["stopReason"] = orStr(item["stopReason"], "stop")
		copyKeys(m, item, "usage", "errorMessage")
	case "tool":
		m["role"] = "toolResult"
		m["toolCallId"], m["toolName"], m["isError"] = item["toolCallId"], item["toolName"], item["isError"]
		copyKeys(m, item, "details")
	}
	return m
}

func copyKeys(dst, src object, keys ...string) {
	for _, k := range keys {
		if v, ok := src[k]; ok {
			dst[k] = v
		}
	}
}

func partKind(p any) string {
	part, _ := p.(object)
	switch part["type"] {
	case "thinking":
		return "thinking"
	case "toolCall":
		return "toolcall"
	}
	return "text"
}

func str(v any) string { s, _ := v.(string); return s }

func orStr(v any, alt string) any {
	if s, _ := v.(string); s != "" {
		return s
	}
	return alt
}
