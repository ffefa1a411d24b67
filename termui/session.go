package termui

import (
	"context"
	"time"

	"pi/provider"
	"pi/rpcwire"
	"pi/session"
	"pi/tui"
)

// Session is what the controller asks of the session it shows: one method per operation,
// plain values in and out. The local session and an attached one both implement it.
type Session interface {
	// Notes say what differs in this session's commands (see Notes).
	Notes(ctx context.Context) Notes

	// Send hands over a line the user typed (and its pictures), as in.How says.
	Send(ctx context.Context, in Input) error
	// Abort stops what runs (the run, a compaction, a !cmd, a branch summary); it is called
	// on the input goroutine, so it must not wait.
	Abort()
	// RunShortcut runs the script shortcut bound to key.
	RunShortcut(ctx context.Context, key string) error
	// Quit leaves: pi's process locally, the session (which goes on) when attached.
	Quit()

	// State is the session's model, thinking level, queue modes and auto-compaction.
	State(ctx context.Context) (rpcwire.State, error)
	Models(ctx context.Context) ([]provider.Model, error)
	SetModel(ctx context.Context, providerName, id string) (provider.Model, error)
	// CycleModel steps through the scope; nil when there is no other model.
	CycleModel(ctx context.Context, step int) (*provider.Model, error)
	// CycleThinking steps the thinking level; ok is false when the model does not think.
	CycleThinking(ctx context.Context) (level string, ok bool, err error)
	SetThinking(ctx context.Context, level string) error
	// SetQueueMode sets the steering ("steer") or follow-up ("followUp") queue's mode.
	SetQueueMode(ctx context.Context, which, mode string) error
	SetAutoCompaction(ctx context.Context, on bool) error
	// SetScope sets the models Ctrl+P cycles through; no patterns clears the scope.
	SetScope(ctx context.Context, patterns []string) error
	// ScopedModels are the models Ctrl+P cycles through; scoped says a scope chose them.
	ScopedModels(ctx context.Context) (models []provider.Model, scoped bool, err error)

	Compact(ctx context.Context, instructions string) (tokensBefore, tokensAfter int, err error)
	NewSession(ctx context.Context) (Switch, error)
	Clone(ctx context.Context) (Switch, error)
	ForkPoints(ctx context.Context) ([]session.ForkPoint, error)
	// Fork starts a new session from an earlier user message; text is that message's.
	Fork(ctx context.Context, entryID string) (text string, sw Switch, err error)
	// Resumable lists the sessions /resume offers, in the order to show them.
	Resumable(ctx context.Context) ([]Resumable, error)
	Resume(ctx context.Context, r Resumable) (Switch, error)
	// SearchSessions calls found with the line that matched query in each session of refs
	// (Resumable's Refs) whose text holds it (what the user and the assistant wrote, the tools
	// and paths), as the search finds them, until it is done, ctx ends or found returns false.
	SearchSessions(ctx context.Context, query string, refs []string, found func(ref, line string) bool) error
	// Tree is every entry of the session and the current leaf.
	Tree(ctx context.Context) (entries []session.TreeEntry, leaf string, err error)
	LeavesConversation(ctx context.Context, targetID string) (bool, error)
	// NavigateTree moves to targetID; editorText is the user message moved off, if any.
	NavigateTree(ctx context.Context, targetID string, summarize bool, focus string) (editorText string, err error)
	SetLabel(ctx context.Context, entryID, label string) error
	Rename(ctx context.Context, name string) error
	// Counts are what /session counts.
	Counts(ctx context.Context) (Counts, error)
	// Export writes the session to path (HTML, or the session file for .jsonl); it returns
	// the file written.
	Export(ctx context.Context, path string) (string, error)
	// LastReply is the text of the last reply; ok is false before the first.
	LastReply(ctx context.Context) (text string, ok bool, err error)
	// Reload loads the scripts again; themeDirs are the theme folders they offer now.
	Reload(ctx context.Context) (themeDirs []string, err error)
	// Trust says whether this project's .pi/init.lua may run, and whether anyone decided.
	Trust(ctx context.Context) (trusted, undecided bool, err error)
	// SetTrust records the decision and applies it; msg says what happened.
	SetTrust(ctx context.Context, trusted bool) (msg string, err error)
	// Bash runs a !cmd line (exclude: !!cmd, kept out of the context); partial gets the
	// output so far.
	Bash(ctx context.Context, command string, exclude bool, partial func(output string)) (session.BashResult, error)
	// Commands are the scripts' slash commands; it waits for the scripts to load.
	Commands(ctx context.Context) ([]Command, error)
	Shortcuts(ctx context.Context) ([]tui.Shortcut, error)

	// Import opens a pi or Claude Code session file (on the session's machine) as a new
	// session here; skipped counts the lines it could not use.
	Import(ctx context.Context, path string) (sw Switch, skipped int, err error)
	// DebugReport is what a bug report needs of the session: versions, the configuration with
	// keys redacted, the last request's sizes and every message.
	DebugReport(ctx context.Context) (string, error)

	// Hold shows the screen working while the controller runs something Escape must reach
	// (a !cmd, a compaction, a branch summary); release ends it.
	Hold() (release func())
	// ShowSession draws what a session switch or a move in the tree put in force: the
	// conversation, the queues and the footer.
	ShowSession(ctx context.Context)
	// Refresh shows the footer as the session is now.
	Refresh(ctx context.Context)
}

// How says what Send does with a line.
type How int

const (
	SendPrompt   How = iota // Enter while idle
	SendSteer               // Enter while the agent works
	SendFollowUp            // Alt+Enter: after the agent has finished
	SendCommand             // a /name the controller does not know: as typed, steering while the agent works
)

// Input is a line the user typed, with its pictures.
type Input struct {
	Text   string
	Images []provider.Block
	How    How
}

// Switch is where a session switch (new, clone, fork, resume) went: the session's id and a
// note for the notice, e.g. the attached session left running.
type Switch struct {
	ID   string
	Note string
}

// Resumable is a row of /resume. Messages counts the session's messages when Counted; Cwd is
// set only when the session works elsewhere than this one.
type Resumable struct {
	Ref         string // what Resume takes: a session id or file
	Name        string
	FirstPrompt string
	ID          string
	Modified    time.Time
	Messages    int
	Counted     bool
	Cwd         string
	Mark        string // before the title: where it stands among sessions started from others (session.ThreadMark)
}

// Counts are what /session counts: Branch, what BranchIs says in words (the branch from the
// session's start, or only what is in context), and File, the whole file with every branch as
// the export counts it; nil where the session cannot count its file.
type Counts struct {
	Branch   session.Stats
	BranchIs string
	File     *session.Stats
}

// Command is a script's slash command; Complete (nil: none) offers its arguments.
type Command struct {
	Name, Description, ArgHint string
	Complete                   func(ctx context.Context, arg string) []string
}

// Notes are what differs between sessions, as values: the controller has one code path and
// reads these where the words or a choice differ.
type Notes struct {
	// Descriptions replace the local descriptions of commands, by name (e.g. /new under
	// attach starts a session in pi serve).
	Descriptions map[string]string
	// Exit is the command that leaves ("quit" locally, "detach" attached); quit and exit
	// always do. ExitDescription is its description.
	Exit, ExitDescription string
	// NoResume is the notice when there is no session to resume.
	NoResume string
	// Project is the folder whose .pi/init.lua /trust decides on.
	Project string
	// Trust, when set, is what /trust shows instead of asking: someone else decides.
	Trust string
	// SettingsSaved says the session's settings are saved to pi.toml as they change;
	// otherwise they apply to the session only. SettingsFile is this machine's pi.toml.
	SettingsSaved bool
	SettingsFile  string
}
