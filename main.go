// Command pi is a terminal coding agent for people who run language models on their own
// machine.
//
// The root package owns the live session and its front ends, and nothing below it: a harness
// (harness.go) holds one session (the agent, its recorder, settings, scripts and the work in
// flight) and takes every input through one front door, Send; the modes (terminal UI, RPC,
// print, JSON, and pi eval through evaldrive.go) are I/O adapters that turn keys, lines and
// flags into harness calls and events into output, holding no cancels or run state of their
// own. The agent loop, configuration, providers, tools, sessions, scripts and the terminal are
// the packages below; the root reaches them through their APIs and small function-typed seams,
// and nothing imports it. main.go holds the flags and the choice of mode; wiring.go builds a
// harness.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"pi/config"
	"pi/eval"
	"pi/provider"
	"pi/session"

	"golang.org/x/term"
)

// cliOptions are the command-line flags.
type cliOptions struct {
	print          bool
	mode           string
	providerName   string
	model          string
	thinking       string
	systemPrompt   string
	appendPrompt   string
	toolList       string
	noTools        bool
	noContextFiles bool
	fauxScript     string
	trust          bool
	noExtensions   bool
	listModels     bool
	continueLast   bool
	resume         bool
	sessionRef     string
	forkRef        string
	noSession      bool
	sessionDir     string
	messages       []string
	// cwd is where tools run and sessions and context files are looked up; empty means the
	// process's directory. pi eval sets it to each task's scratch copy.
	cwd string
	// stopAfterTurn ends a run after a turn (pi eval's turn budget).
	stopAfterTurn func(context.Context, *provider.Message, []provider.Message) bool
}

func main() {
	// SIGHUP (the terminal or the ssh session went away) ends pi as SIGTERM does: the run is
	// aborted and the tools' process groups are killed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go exitSoonAfter(ctx, exitGrace)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// exitGrace is how long pi may take to wind down after a signal before it exits anyway.
const exitGrace = 2 * time.Second

// exitSoonAfter ends the process once grace has passed after ctx ended (a signal), whatever
// is still running: a script that will not stop must not keep pi alive. Sessions are
// append-only, so nothing written is lost.
func exitSoonAfter(ctx context.Context, grace time.Duration) {
	<-ctx.Done()
	time.Sleep(grace)
	fmt.Fprintln(os.Stderr, "pi: still winding down after the signal; exiting now")
	os.Exit(1)
}

// run is pi without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "eval" {
		return eval.Main(ctx, args[1:], stdout, stderr, eval.Options{Drive: driveEval, CheckModel: checkEvalModel})
	}
	opts, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 2
	}
	if opts.mode != "" && opts.mode != "text" && opts.mode != "json" && opts.mode != "rpc" {
		fmt.Fprintf(stderr, "pi: unknown mode %q (use text, json or rpc)\n", opts.mode)
		return 2
	}
	if opts.thinking != "" && !config.IsThinkingLevel(opts.thinking) {
		fmt.Fprintf(stderr, "pi: --thinking %q: want one of %s\n", opts.thinking, strings.Join(config.ThinkingLevels(), ", "))
		return 2
	}
	if opts.listModels {
		return runListModels(ctx, stdout, stderr)
	}
	interactive := opts.mode == "" && !opts.print && isTerminal(stdin)
	if len(args) > 0 && args[0] == "sessions" || opts.resume && !interactive {
		return runListSessions(ctx, opts, stdout, stderr)
	}
	if !interactive && opts.mode != "rpc" { // in rpc mode stdin carries the commands
		piped, err := readPipedStdin(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "pi: reading standard input:", err)
			return 1
		}
		if piped != "" {
			opts.messages = mergePiped(piped, opts.messages)
		}
	}
	h, err := setup(ctx, opts, interactive, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	defer h.close()
	switch {
	case interactive:
		return runInteractiveMode(ctx, h, opts.messages, opts.resume)
	case opts.mode == "rpc":
		return runRPCMode(ctx, h, stdin, stdout, stderr)
	case opts.mode == "json":
		return runJSONMode(ctx, h, opts.messages, stdout, stderr)
	case len(opts.messages) == 0:
		fmt.Fprintln(stderr, "pi: nothing to do: give a prompt, e.g. pi -p \"explain main.go\"")
		return 2
	}
	return runPrintMode(ctx, h, opts.messages, stdout, stderr)
}

// isTerminal asks the tty driver; a mode check alone would take /dev/null for a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}

// runListModels prints every model the configured and local providers offer.
func runListModels(ctx context.Context, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	cfg, err := config.Load(piHomeDir(), cwd)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	for _, pm := range cfg.ListModels(ctx) {
		if pm.Err != nil {
			fmt.Fprintf(stderr, "%s (%s): %v\n", pm.Provider, pm.BaseURL, pm.Err)
		}
		for _, m := range pm.Models {
			fmt.Fprintf(stdout, "%s/%s\tcontext %d\n", pm.Provider, m.ID, m.ContextWindow)
		}
	}
	return 0
}

func parseArgs(args []string, stderr io.Writer) (*cliOptions, error) {
	o := &cliOptions{}
	fs := flag.NewFlagSet("pi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.print, "p", false, "print mode: run the prompt(s), print the final answer, exit")
	fs.BoolVar(&o.print, "print", false, "same as -p")
	fs.StringVar(&o.mode, "mode", "", "output mode: text (default), json (one event per line) or rpc (pi's JSONL protocol on stdin/stdout)")
	fs.StringVar(&o.providerName, "provider", "", "provider name from pi.toml")
	fs.StringVar(&o.model, "model", "", "model as provider/model[:thinking]")
	fs.StringVar(&o.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh")
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
	fs.StringVar(&o.forkRef, "fork", "", "copy a session (path or id prefix) into a new one and continue there")
	fs.BoolVar(&o.noSession, "no-session", false, "keep the session in memory only")
	fs.StringVar(&o.sessionDir, "session-dir", "", "directory for session files (default $PI_HOME/sessions/<cwd>)")
	fs.BoolVar(&o.listModels, "list-models", false, "list the models of every configured and local provider")
	fs.BoolVar(&o.trust, "trust", false, "run this project's .pi/init.lua for this run (otherwise only in trusted directories)")
	fs.BoolVar(&o.noExtensions, "no-extensions", false, "do not load the project's .pi/init.lua")
	fs.StringVar(&o.fauxScript, "faux-script", "", "test aid: replay scripted replies from a JSON file instead of calling a model")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pi [flags] [prompt ...]   (no prompt in a terminal: the terminal UI)")
		fmt.Fprintln(stderr, "       pi sessions               list this directory's sessions")
		fmt.Fprintln(stderr, "       pi eval --model p/m ...   run the coding tasks against a model (pi eval -h)")
		fs.PrintDefaults()
	}
	// Flags and prompts may be interleaved, as in pi: parse, take one prompt, go on.
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		o.messages = append(o.messages, rest[0])
		args = rest[1:]
	}
	return o, nil
}

// readPipedStdin reads standard input when it is not a terminal.
func readPipedStdin(stdin io.Reader) (string, error) {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return "", nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 {
		return "", nil
	}
	data, err := io.ReadAll(f)
	return strings.TrimRight(string(data), "\n"), err
}

// mergePiped puts piped input in front of the first prompt, as pi does.
func mergePiped(piped string, messages []string) []string {
	if len(messages) == 0 {
		return []string{piped}
	}
	out := append([]string(nil), messages...)
	out[0] = piped + "\n\n" + out[0]
	return out
}

// runListSessions prints this directory's sessions (`pi sessions`, and `-r` without a terminal).
func runListSessions(ctx context.Context, o *cliOptions, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	dir := o.sessionDir
	if dir == "" {
		dir = session.Dir(piHomeDir(), cwd)
	}
	if err := listSessions(ctx, dir, stdout); err != nil {
		fmt.Fprintln(stderr, "pi: listing sessions:", err)
		return 1
	}
	return 0
}
