package session

import (
	"encoding/json"
	"time"

	"pi/provider"
)

// BashResult is pi's BashResult: what a shell command the user ran (!cmd) printed and how it
// ended. RPC's bash command answers with it.
type BashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode"` // nil when the command was killed
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// BashMessage is pi's bashExecution message for a command the user ran; ToLLM words it for
// the model unless exclude (!!cmd) keeps it out of the context.
func BashMessage(command string, r BashResult, exclude bool, now time.Time) provider.Message {
	extra := map[string]json.RawMessage{"command": mustJSON(command), "output": mustJSON(r.Output),
		"exitCode": mustJSON(r.ExitCode), "cancelled": mustJSON(r.Cancelled), "truncated": mustJSON(r.Truncated)}
	if r.FullOutputPath != "" {
		extra["fullOutputPath"] = mustJSON(r.FullOutputPath)
	}
	if exclude {
		extra["excludeFromContext"] = mustJSON(true)
	}
	return provider.Message{Role: RoleBashExecution, Timestamp: now.UnixMilli(), Extra: extra}
}

// CustomMessage is pi's custom message (role "custom") of type customType: shown as that
// type says when display is set, read by the model as user input, recorded as a
// custom_message entry.
func CustomMessage(customType string, content []provider.Block, display bool, now time.Time) provider.Message {
	return provider.Message{Role: RoleCustom, Content: content, Timestamp: now.UnixMilli(),
		Extra: map[string]json.RawMessage{"customType": mustJSON(customType), "display": mustJSON(display)}}
}

// CustomType is the customType of pi's custom message (role "custom": what scripts send, and
// what a custom_message entry records).
func CustomType(m *provider.Message) string { return extraString(m, "customType") }

// Displayed says whether a custom message is to be shown (its display field).
func Displayed(m *provider.Message) bool { return extraBool(m, "display") }
