package agent

import (
	"context"
	"slices"
	"time"

	"pi/provider"
	"pi/tools"
)

// declareToolChanges puts a system message in the transcript when the active tools differ from
// the ones the conversation was last offered: a script's set_active_tools between turns, a
// tool result's added_tools. The first call of a conversation sets what it was offered
// without a message. It returns the message, or nil.
func (a *Agent) declareToolChanges(ctx context.Context) *provider.Message {
	a.mu.Lock()
	active := a.state.Tools
	declared := a.declared
	names := toolNamesOf(active)
	a.declared = names
	a.mu.Unlock()
	if declared == nil {
		return nil
	}
	var added []provider.ToolDef
	for _, t := range active {
		if info := t.Info(); !slices.Contains(declared, info.Name) {
			added = append(added, provider.ToolDef{Name: info.Name, Description: info.Description, Parameters: info.Parameters})
		}
	}
	var removed []string
	for _, n := range declared {
		if !slices.Contains(names, n) {
			removed = append(removed, n)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return nil
	}
	m := provider.ToolChanges(added, removed, time.Now().UnixMilli())
	a.emit(ctx, Event{Type: EvMessageStart, Message: &m})
	a.endMessage(ctx, &m)
	return &m
}

// toolNamesOf names ts.
func toolNamesOf(ts []tools.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Info().Name
	}
	return out
}
