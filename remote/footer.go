package remote

import (
	"time"

	"pi/rpcwire"
	"pi/server"
	"pi/tui"
)

// footer.go keeps what the footer shows (the model, the session's tokens and cost, how full
// the context is) and applies the events only pi's own clients get (pi_event).

// footerOfLocked is the footer for a snapshot: usage summed over its replies, the context as
// the last reply counted it, the window from the server's list of models.
func (v *view) footerOfLocked(snap *server.SessionSnapshot) tui.FooterInfo {
	f := tui.FooterInfo{Cwd: snap.Cwd, Session: snap.Name, Model: snap.Model.Provider + "/" + snap.Model.ID,
		Thinking: snap.ThinkingLevel}
	for _, m := range v.models {
		if m.Provider == snap.Model.Provider && m.ID == snap.Model.ID {
			f.ContextWindow = m.ContextWindow
		}
	}
	for _, item := range snap.Transcript {
		u := item.Usage
		if u == nil {
			continue
		}
		f.Input += u.Input
		f.Output += u.Output
		f.CacheRead += u.CacheRead
		f.CacheWrite += u.CacheWrite
		f.Cost += u.Cost.Total
		f.ContextTokens = u.TotalTokens
	}
	return f
}

// piEvent applies one of pi's RPC events: a tool's partial output, the follow-up queue, a
// retry, the scripts' extension UI, a later answer to a command.
func (v *view) piEvent(line string) {
	ev, err := rpcwire.DecodeEvent([]byte(line))
	if err != nil {
		return
	}
	switch ev.Type {
	case "extension_ui_request":
		go v.extensionUI(line) // a question waits for the user: never on the events' goroutine
	case server.UIClosed:
		v.closeDialog(ev.ID)
	case "response": // a command's later answer: a prompt that failed after it was taken
		if !ev.Success {
			v.ui.Notify(tui.LevelError, ev.Error)
		}
	case "tool_execution_update":
		if ev.PartialResult != nil {
			v.ui.ToolUpdate(ev.ToolCallID, ev.PartialResult.Content)
		}
	case "queue_update":
		v.mu.Lock()
		v.steer, v.followUps = ev.Steering, ev.FollowUp
		v.mu.Unlock()
		v.ui.SetQueue(ev.Steering, ev.FollowUp)
	case "auto_retry_start":
		v.ui.RetryStart(ev.Attempt, ev.MaxAttempts, time.Duration(ev.DelayMs)*time.Millisecond, ev.ErrorMessage)
	case "auto_retry_end":
		v.ui.RetryEnd()
	}
}
