package main

// cli.go is pi's command line: the flags, -h and --version, piped input, and the listings
// (pi sessions, --list-models) that need no live session.

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"pi/config"
	"pi/internal/sandbox"
	"pi/live"
	"pi/lua"
	"pi/provider"
	"pi/session"
	"pi/tools"
	"runtime/debug"
	"slices"
	"strings"
)

// cliOptions are the command-line flags.
type cliOptions struct {
	print          bool
	mode           string
	providerName   string
	model          string
	models         string // --models: the scope of Ctrl+P
	thinking       string
	systemPrompt   string
	appendPrompt   string
	toolList       string
	noTools        bool
	noContextFiles bool
	fauxScript     string
	trust          bool
	noExtensions   bool
	extensions     []string  // -e FILE
	scriptFlags    lua.Flags // flags pi does not know, for pi.flag
	sandbox        string    // --sandbox: replaces [sandbox] mode
	permissions    string    // --permissions: auto, ask or read-only over [permissions] mode
	yes            bool      // --yes: permission questions nobody can be asked are answered yes
	listModels     bool
	continueLast   bool
	resume         bool
	sessionRef     string
	exportRef      string // --export SESSION [file]
	connect        string // --connect: the socket of pi serve, for -p
	fullUpdates    bool   // --full-updates: every message_update of json and rpc modes carries the partial reply
	forkRef        string
	noSession      bool
	sessionDir     string
	messages       []string
	version        bool
	allSessions    bool // pi sessions --all
	// files are the @file arguments; images what they attach to the first prompt.
	files  []string
	images []provider.Block
}

// parseArgs reads the flags; -h is flag.ErrHelp.
func parseArgs(args []string, stderr io.Writer) (*cliOptions, error) {
	o := &cliOptions{}
	fs := parseFlags(o, stderr)
	args, o.scriptFlags = lua.SplitFlags(args, fs) // for pi.register_flag's flags
	// Flags and prompts may be interleaved, as in pi: parse, take one prompt, go on.
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if strings.HasPrefix(rest[0], "@") && len(rest[0]) > 1 {
			o.files = append(o.files, rest[0][1:]) // @file: attached to the first prompt
		} else {
			o.messages = append(o.messages, rest[0])
		}
		args = rest[1:]
	}
	return o, nil
}

// parseFlags defines pi's flags over o.
func parseFlags(o *cliOptions, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("pi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.print, "p", false, "print mode: run the prompt(s), print the final answer, exit")
	fs.BoolVar(&o.print, "print", false, "same as -p")
	fs.StringVar(&o.mode, "mode", "", "output mode: text (default), json (one event per line) or rpc (pi's JSONL protocol on stdin/stdout)")
	fs.StringVar(&o.providerName, "provider", "", "provider name from pi.toml")
	fs.StringVar(&o.model, "model", "", "model as provider/model[:thinking]")
	fs.StringVar(&o.models, "models", "", "models Ctrl+P cycles through: provider/model patterns, comma-separated")
	fs.StringVar(&o.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh, max (the model's highest)")
	fs.StringVar(&o.systemPrompt, "system-prompt", "", "replace the body of the system prompt")
	fs.StringVar(&o.appendPrompt, "append-system-prompt", "", "text added to the system prompt")
	fs.StringVar(&o.toolList, "tools", "", "comma-separated tools to enable (default read,bash,edit,write)")
	fs.BoolVar(&o.noTools, "no-tools", false, "enable no tools")
	fs.BoolVar(&o.noContextFiles, "no-context-files", false, "do not load AGENTS.md / CLAUDE.md")
	fs.BoolVar(&o.continueLast, "c", false, "continue the newest session of this directory")
	fs.BoolVar(&o.continueLast, "continue", false, "same as -c")
	fs.BoolVar(&o.resume, "r", false, "pick a session to resume (outside the terminal UI: list them)")
	fs.BoolVar(&o.resume, "resume", false, "same as -r")
	fs.StringVar(&o.sessionRef, "session", "", "continue a session: a file path or the start of its id")
	fs.StringVar(&o.exportRef, "export", "", "write a session (path or id prefix) as an HTML page: pi --export SESSION [file.html]")
	fs.BoolVar(&o.fullUpdates, "full-updates", false, "json and rpc modes: every message_update carries the whole partial reply (otherwise only now and then)")
	fs.StringVar(&o.connect, "connect", "", "with -p: send the prompts to a session of pi serve at this socket")
	fs.StringVar(&o.forkRef, "fork", "", "copy a session (path or id prefix) into a new one and continue there")
	fs.BoolVar(&o.noSession, "no-session", false, "keep the session in memory only")
	fs.StringVar(&o.sessionDir, "session-dir", "", "directory for session files (default $PI_HOME/sessions/<cwd>)")
	fs.BoolVar(&o.listModels, "list-models", false, "list the models of every configured and local provider")
	fs.BoolVar(&o.trust, "trust", false, "run this project's .pi/init.lua for this run (otherwise only in trusted directories)")
	fs.BoolVar(&o.noExtensions, "no-extensions", false, "do not load the project's .pi/init.lua nor any package")
	for _, n := range []string{"e", "extension"} {
		fs.Func(n, "load a Lua script for this run (repeatable)", func(p string) error { o.extensions = append(o.extensions, p); return nil })
	}
	fs.Func("sandbox", "off, or workspace: commands write only in the project, temp and allow_write",
		func(v string) error { o.sandbox = v; return sandbox.CheckMode(v) })
	fs.StringVar(&o.permissions, "permissions", "", "auto, ask (before calls that can change something) or read-only")
	fs.BoolVar(&o.yes, "yes", false, "answer permission questions yes where nobody can be asked (print and JSON modes)")
	fs.StringVar(&o.fauxScript, "faux-script", "", "test aid: replay scripted replies from a JSON file instead of calling a model")
	fs.BoolVar(&o.allSessions, "all", false, "with pi sessions: also the TypeScript pi's sessions of this directory")
	fs.BoolVar(&o.version, "v", false, "print pi's version")
	fs.BoolVar(&o.version, "version", false, "same as -v")
	fs.Usage = func() {} // -h prints helpText on stdout (run), not a dump of every flag twice
	return fs
}

// liveOptions is what the command line asks of the live session.
func (o *cliOptions) liveOptions(interactive bool, stderr io.Writer) live.Options {
	return live.Options{Stderr: stderr, Interactive: interactive, Prewarm: interactive, ProviderName: o.providerName, Model: o.model,
		Thinking: o.thinking, Scope: config.SplitList(o.models), FauxScript: o.fauxScript, SystemPrompt: o.systemPrompt,
		AppendPrompt: o.appendPrompt, Tools: config.SplitList(o.toolList), NoTools: o.noTools, NoContextFiles: o.noContextFiles,
		Trust: o.trust, NoExtensions: o.noExtensions, Extensions: o.extensions, ScriptFlags: o.scriptFlags,
		Sandbox: o.sandbox, Permissions: o.permissions, Yes: o.yes,
		Session:   session.Choice{Dir: o.sessionDir, InMemory: o.noSession, Fork: o.forkRef, Ref: o.sessionRef, Continue: o.continueLast},
		OpenStore: sessionStore}
}

// piHomeDir is $PI_HOME, else ~/.pi.
func piHomeDir() string { return live.Home() }

// attachArgs puts the @file arguments in front of the first prompt (a prompt of their own
// when there is none).
func attachArgs(o *cliOptions) error {
	if len(o.files) == 0 {
		return nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("finding the working directory: %w", err)
	}
	text, images, err := tools.Attachments(o.files, cwd)
	if err != nil {
		return err
	}
	if len(o.messages) == 0 {
		o.messages = []string{strings.TrimSuffix(text, "\n")}
	} else {
		o.messages[0] = text + o.messages[0]
	}
	o.images = append(images, o.images...)
	return nil
}

// attachTypedArgs attaches the files the @words inside the prompt arguments name, as the
// editor does with a typed line: `pi -p "explain @main.go"` sends main.go's text in front of
// the words. Pictures attach this way in the first prompt, where images go; a prompt that is
// a /command is left as typed, as the editor leaves it. A word whose file cannot go is sent
// as typed, with a line on stderr saying why.
func attachTypedArgs(ctx context.Context, o *cliOptions, stderr io.Writer) error {
	if len(o.messages) == 0 {
		return nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("finding the working directory: %w", err)
	}
	for i, m := range o.messages {
		if strings.HasPrefix(m, "/") {
			continue
		}
		t := tools.AttachTyped(ctx, m, cwd, i == 0)
		for _, err := range t.Problems {
			fmt.Fprintln(stderr, "pi:", err)
		}
		o.messages[i] = t.Text
		o.images = append(o.images, t.Images...)
	}
	return nil
}

// helpText is -h: usage, the flags by what they are for, environment, files, examples.
//
//go:embed help.txt
var helpText string

// versionText is pi's version and the commit it was built from, when the build knows it.
func versionText() string {
	v := "pi " + piVersion
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " (" + s.Value[:12] + ")"
		}
	}
	return v + " " + info.GoVersion
}

// piVersion is this release of pi.
const piVersion = "0.14.0"

// runListModels prints every model the configured and local providers offer.
func runListModels(ctx context.Context, trust bool, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	cfg, err := config.Load(piHomeDir(), cwd, live.ProjectTrusted(trust, piHomeDir(), cwd))
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	cfg, stop := live.WithScriptProviders(ctx, cfg, piHomeDir(), trust, cwd)
	defer stop()
	listed, silent := 0, []string{}
	for _, pm := range cfg.ListModels(ctx) {
		switch {
		case pm.Err != nil && pm.Configured:
			fmt.Fprintf(stderr, "%s (%s): %v\n", pm.Provider, pm.BaseURL, pm.Err)
		case pm.Err != nil: // a probe of a local server nobody configured: only worth a word if all fail
			silent = append(silent, pm.Provider+" at "+pm.BaseURL)
		}
		for _, m := range pm.Models {
			fmt.Fprintf(stdout, "%s/%s\tcontext %d\n", pm.Provider, m.ID, m.ContextWindow)
			listed++
		}
	}
	if listed == 0 {
		fmt.Fprintf(stderr, "pi: no models: nothing answered (%s); start Ollama (ollama serve) and pull a model, "+
			"or configure a provider in pi.toml\n", strings.Join(silent, ", "))
		return 1
	}
	return 0
}

// runListSessions prints this directory's sessions (`pi sessions`, and `-r` without a
// terminal); with --all, and for -r, the TypeScript pi's sessions of this directory too.
func runListSessions(ctx context.Context, o *cliOptions, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	if done, code := listStoredSessions(ctx, cwd, stdout, stderr); done {
		return code
	}
	dirs := []string{o.sessionDir}
	if o.sessionDir == "" {
		dirs[0] = session.Dir(piHomeDir(), cwd)
	}
	if o.allSessions || o.resume {
		dirs = append(dirs, session.Dir(session.PiAgentDir(), cwd))
	}
	infos, err := session.ListAll(ctx, dirs...)
	if err != nil {
		fmt.Fprintln(stderr, "pi: listing sessions:", err)
		return 1
	}
	session.WriteList(stdout, infos)
	var damaged []session.Unreadable
	for i, dir := range dirs {
		if !slices.Contains(dirs[:i], dir) {
			files, _ := session.ListUnreadable(dir) // a folder List could read, read again
			damaged = append(damaged, files...)
		}
	}
	session.WriteUnreadable(stdout, damaged)
	return 0
}
