package provider

// ReplayMessages returns the messages an adapter should send back to a model: pi's own
// transcript minus what a model must not see again, and with what a model requires added.
//
//   - Assistant replies that ended in error or were aborted are left out: their content is
//     partial, and servers reject tool calls that have no results.
//   - A tool call that has no result before the next user or assistant message (an
//     interrupted run) gets an error result, since every server demands one per call.
//   - A tool result whose call is not pending (its reply was left out, or lost from a damaged
//     session file) is left out too: servers reject results that answer no call.
//   - Messages of application roles (anything but user, assistant, toolResult) are left out;
//     the loop converts those it wants the model to see before they reach a provider.
//
// The result depends only on its input, so a conversation replays to the same prefix on
// every turn: the model server can reuse its cache.
func ReplayMessages(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	var pending []Block // tool calls still waiting for their results
	flush := func() {
		for _, call := range pending {
			out = append(out, Message{Role: RoleToolResult, ToolCallID: call.ID, ToolName: call.Name,
				Content: []Block{Text("No result provided")}, IsError: true})
		}
		pending = nil
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleAssistant:
			if m.StopReason == StopError || m.StopReason == StopAborted {
				continue
			}
			flush()
			out = append(out, m)
			pending = m.ToolCalls()
		case RoleToolResult:
			for i, call := range pending {
				if call.ID == m.ToolCallID {
					pending = append(pending[:i:i], pending[i+1:]...)
					out = append(out, m)
					break
				}
			}
		case RoleUser:
			flush()
			out = append(out, m)
		}
	}
	flush()
	return out
}
