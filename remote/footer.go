package remote

import (
	"encoding/json"
	"time"

	"pi/provider"
	"pi/server"
	"pi/tui"
)

// footer.go keeps what the footer shows (the model, the session's tokens and cost, how full
// the context is) and applies the events only pi's own clients get (pi_event).

// footerOfLocked is the footer for a snapshot: usage summed over its replies, the context as
// the last reply counted it, the window from the server's list of models.
func (v *view) footerOfLocked(snap map[string]any) tui.FooterInfo {
	model, _ := snap["model"].(map[string]any)
	f := tui.FooterInfo{Cwd: str(snap["cwd"]), Session: str(snap["name"]),
		Model: str(model["provider"]) + "/" + str(model["id"]), Thinking: str(snap["thinkingLevel"])}
	for _, m := range v.models {
		if str(m["provider"]) == str(model["provider"]) && str(m["id"]) == str(model["id"]) {
			f.ContextWindow = integer(m["contextWindow"])
		}
	}
	items, _ := snap["transcript"].([]any)
	for _, it := range items {
		item, _ := it.(map[string]any)
		u, ok := item["usage"].(map[string]any)
		if !ok {
			continue
		}
		f.Input += integer(u["input"])
		f.Output += integer(u["output"])
		f.CacheRead += integer(u["cacheRead"])
		f.CacheWrite += integer(u["cacheWrite"])
		cost, _ := u["cost"].(map[string]any)
		total, _ := cost["total"].(float64)
		f.Cost += total
		f.ContextTokens = integer(u["totalTokens"])
	}
	return f
}

// integer reads a CBOR integer (or a float that holds one).
func integer(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case uint64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

func (v *view) footer() tui.FooterInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.foot
}

// setModels keeps the models of a server snapshot.
func (v *view) setModels(snapshot any) {
	snap, _ := snapshot.(map[string]any)
	list, _ := snap["models"].([]any)
	models := make([]map[string]any, 0, len(list))
	for _, m := range list {
		if mm, ok := m.(map[string]any); ok {
			models = append(models, mm)
		}
	}
	v.mu.Lock()
	v.models = models
	v.mu.Unlock()
}

func (v *view) modelList() []map[string]any {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.models
}

// piEvent applies one of pi's RPC events: a tool's partial output, the follow-up queue, a
// retry, the scripts' extension UI, a later answer to a command.
func (v *view) piEvent(line string) {
	var ev struct {
		Type          string   `json:"type"`
		ID            string   `json:"id"`
		ToolCallID    string   `json:"toolCallId"`
		Steering      []string `json:"steering"`
		FollowUp      []string `json:"followUp"`
		PartialResult *struct {
			Content []provider.Block `json:"content"`
		} `json:"partialResult"`
		Attempt      int    `json:"attempt"`
		MaxAttempts  int    `json:"maxAttempts"`
		DelayMs      int64  `json:"delayMs"`
		ErrorMessage string `json:"errorMessage"`
		Success      bool   `json:"success"`
		Error        string `json:"error"`
	}
	if json.Unmarshal([]byte(line), &ev) != nil {
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
		v.ui.RetryStart(ev.Attempt, ev.MaxAttempts, msDuration(ev.DelayMs), ev.ErrorMessage)
	case "auto_retry_end":
		v.ui.RetryEnd()
	}
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
