package live

import (
	"context"
	"io"

	"pi/config"
	"pi/lua"
	"pi/provider"
	"pi/session"
	"pi/subagent"
)

// Options say what a live session needs: where it works, which model and tools, which
// scripts, what it may do and which session file it continues. The command line, pi serve,
// pi eval and the Agent tools' children each fill one in; none of them passes its flags.
type Options struct {
	Cwd    string    // where tools run and context files are looked up; "" is the process's folder
	PiHome string    // "" is $PI_HOME, else ~/.pi
	Stderr io.Writer // warnings while the session is built and runs
	// Interactive is the terminal UI: it starts without a usable model (and says what to do)
	// and asks on its own screen whether an undecided project's script may run.
	Interactive bool
	// Prewarm sends the model's server the next request's prefix whenever it changes (at the
	// start, after a compaction, a model switch, a session switch) while nothing runs, so the
	// server has it evaluated when the user sends a prompt. Only for models whose Prewarm is set.
	Prewarm bool

	ProviderName string // a provider of pi.toml, for a Model without one
	Model        string // provider/model[:thinking]; "" is pi.toml's
	// Provider, when set, is what the session talks to instead of a configured provider, with
	// ProviderModel as its model: tests, and programs that embed a session.
	Provider      provider.Provider
	ProviderModel provider.Model
	Thinking      string   // "" is the model's configured level
	Scope         []string // the models CycleModel steps through (patterns)
	FauxScript    string   // the scripted model's replies (tests, pi eval)

	SystemPrompt   string   // replaces the system prompt's body
	AppendPrompt   string   // added to the system prompt
	Tools          []string // the tools to offer; nil is pi.toml's
	NoTools        bool
	NoContextFiles bool // no AGENTS.md / CLAUDE.md
	// InheritedTools says Tools is a parent's active set, not a list the user wrote: a name
	// the child's scripts serve only later, or not at all, is left out instead of failing.
	InheritedTools bool

	Trust        bool     // the project's scripts and settings may run (--trust)
	NoExtensions bool     // no project scripts or packages
	Extensions   []string // script files to load besides the usual ones (-e)
	ScriptFlags  lua.Flags

	Sandbox     string // replaces [sandbox] mode
	Permissions string // replaces [permissions] mode
	Yes         bool   // permission questions nobody can be asked are answered yes

	// Session picks the session file (its Home and Cwd are filled in from the above).
	Session session.Choice
	// OpenStore opens the store pi.toml's [session] names (nil, or a nil store: the JSONL
	// files); the session closes it when it closes. The root provides it, since the SQLite
	// store is linked only into some builds.
	OpenStore func(ctx context.Context, cfg *config.Config, piHome string) (session.Store, error)
	// Child is set in an Agent tool's child: who it is in the tree of sessions.
	Child *subagent.Self
	// Clock is the time the Agent tool's schedules run on (nil: the real one); tests move it.
	Clock subagent.Clock
	// StopAfterTurn ends a run after a turn (pi eval's turn budget).
	StopAfterTurn func(context.Context, *provider.Message, []provider.Message) bool
}
