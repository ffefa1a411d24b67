package rpcwire

import (
	"encoding/json"

	"pi/provider"
	"pi/session"
)

// The data of each response, named after its command. Keys come in the order pi writes them:
// get_state in pi's RpcSessionState order, the others sorted as Go writes a map.

// State is get_state's data.
type State struct {
	Model                 provider.Model `json:"model"`
	ThinkingLevel         string         `json:"thinkingLevel"`
	IsStreaming           bool           `json:"isStreaming"`
	IsCompacting          bool           `json:"isCompacting"`
	SteeringMode          string         `json:"steeringMode"`
	FollowUpMode          string         `json:"followUpMode"`
	SessionFile           string         `json:"sessionFile,omitempty"`
	SessionID             string         `json:"sessionId"`
	SessionName           string         `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool           `json:"autoCompactionEnabled"`
	MessageCount          int            `json:"messageCount"`
	PendingMessageCount   int            `json:"pendingMessageCount"`
}

// Models is get_available_models' data.
type Models struct {
	Models []provider.Model `json:"models"`
}

// CycleModel is cycle_model's data; the response's data is null when there is no other model.
type CycleModel struct {
	IsScoped      bool           `json:"isScoped"`
	Model         provider.Model `json:"model"`
	ThinkingLevel string         `json:"thinkingLevel"`
}

// CycleThinking is cycle_thinking_level's data; null when the model does not think.
type CycleThinking struct {
	Level string `json:"level"`
}

// ThinkingLevels is get_available_thinking_levels' data.
type ThinkingLevels struct {
	Levels []string `json:"levels"`
}

// ScopedModels is scoped_models' data: the models cycle_model steps through, and whether a
// scope chose them (else they are every available model).
type ScopedModels struct {
	Models []provider.Model `json:"models"`
	Scoped bool             `json:"scoped"`
}

// Leaves is leaves_conversation's data: whether moving to the target leaves messages behind.
type Leaves struct {
	Leaves bool `json:"leaves"`
}

// Tree is get_tree's data; LeafID is null before the first entry.
type Tree struct {
	Entries []session.TreeEntry `json:"entries"`
	LeafID  *string             `json:"leafId"`
}

// NavigateTree is navigate_tree's data; EditorText is the user message moved off, if any.
type NavigateTree struct {
	Cancelled  bool   `json:"cancelled"`
	EditorText string `json:"editorText,omitempty"`
	LeafID     string `json:"leafId"`
}

// ForkMessages is get_fork_messages' data.
type ForkMessages struct {
	Messages []session.ForkPoint `json:"messages"`
}

// Fork is fork's data: the text of the message forked from, for the editor.
type Fork struct {
	Cancelled bool   `json:"cancelled"`
	Text      string `json:"text"`
}

// Cancelled is the data of new_session, clone and switch_session.
type Cancelled struct {
	Cancelled bool `json:"cancelled"`
}

// SessionStats is get_session_stats' data.
type SessionStats = session.Stats

// Bash is bash's data.
type Bash = session.BashResult

// ExportHTML is export_html's data: the file written.
type ExportHTML struct {
	Path string `json:"path"`
}

// LastAssistantText is get_last_assistant_text's data; Text is null before the first reply.
type LastAssistantText struct {
	Text *string `json:"text"`
}

// Compact is compact's data.
type Compact struct {
	Details          json.RawMessage `json:"details"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
	Summary          string          `json:"summary"`
	TokensAfter      int             `json:"tokensAfter"`
	TokensBefore     int             `json:"tokensBefore"`
}

// Commands is get_commands' data: the scripts' slash commands and the skills.
type Commands struct {
	Commands []SlashCommand `json:"commands"`
}

// SlashCommand is one entry of get_commands; Source is extension or skill.
type SlashCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"`
}

// Shortcuts is get_shortcuts' data: the keys the scripts bound.
type Shortcuts struct {
	Shortcuts []Shortcut `json:"shortcuts"`
}

// Shortcut is one entry of get_shortcuts; Source is the script that bound it.
type Shortcut struct {
	Key         string `json:"key"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"`
}

// Messages is get_messages' data.
type Messages struct {
	Messages []provider.Message `json:"messages"`
}

// Import is import_session's data: how many lines of the file could not be used.
type Import struct {
	Skipped int `json:"skipped"`
}

// DebugReport is debug_report's data: the session's part of /debug.
type DebugReport struct {
	Report string `json:"report"`
}
