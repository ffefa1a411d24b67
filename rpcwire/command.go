package rpcwire

import (
	"encoding/json"

	"pi/provider"
)

// Command holds the fields of every command; each command reads the ones it takes. Decoding
// is the same with or without omitempty, so a client encodes only the fields it sets.
type Command struct {
	ID                 json.RawMessage  `json:"id,omitempty"`
	Type               string           `json:"type"`
	Message            string           `json:"message,omitempty"`
	Images             []provider.Block `json:"images,omitempty"`
	StreamingBehavior  string           `json:"streamingBehavior,omitempty"`
	ParentSession      string           `json:"parentSession,omitempty"`
	Provider           string           `json:"provider,omitempty"`
	ModelID            string           `json:"modelId,omitempty"`
	Level              string           `json:"level,omitempty"`
	Mode               string           `json:"mode,omitempty"`
	CustomInstructions string           `json:"customInstructions,omitempty"`
	Enabled            *bool            `json:"enabled,omitempty"`
	Command            string           `json:"command,omitempty"`
	ExcludeFromContext bool             `json:"excludeFromContext,omitempty"`
	OutputPath         string           `json:"outputPath,omitempty"`
	SessionPath        string           `json:"sessionPath,omitempty"`
	EntryID            string           `json:"entryId,omitempty"`
	TargetID           string           `json:"targetId,omitempty"`  // navigate_tree, leaves_conversation
	Summarize          bool             `json:"summarize,omitempty"` // navigate_tree
	Name               string           `json:"name,omitempty"`
	Label              string           `json:"label,omitempty"`    // set_label
	Patterns           []string         `json:"patterns,omitempty"` // scoped_models
	Step               int              `json:"step,omitempty"`     // cycle_model
	Key                string           `json:"key,omitempty"`      // run_shortcut
}

// Response is the envelope of every answer: data on success (absent for commands that return
// nothing, null when there was nothing to do), error on failure.
type Response struct {
	Type    string          `json:"type"` // always "response"
	ID      json.RawMessage `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// HasData says whether the response carries data that is not null.
func (r *Response) HasData() bool { return len(r.Data) > 0 && string(r.Data) != "null" }
