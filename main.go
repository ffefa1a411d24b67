// Command pi is a terminal coding agent for people who run language models on their own
// machine.
//
// The root package is the process, the command line and the front ends' adapters. A live
// session (package live) holds one conversation (the agent, its recorder, settings, scripts
// and the work in flight) and takes every input through one front door, Send; the modes
// (terminal UI, RPC, print, JSON, pi serve, and pi eval through evaldrive.go) are I/O adapters
// that turn keys, lines and flags into calls of its methods and events into output, holding no
// cancels or run state of their own. main.go holds the choice of mode, cli.go the flags (and
// live.Options from them), commands.go the `pi <word>` subcommands; nothing imports the root.
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
	"pi/internal/proc"
	"pi/internal/sandbox"
	"pi/live"
	"pi/prompt"
	"pi/provider/ollamasetup"

	"golang.org/x/term"
)

func main() {
	if sandbox.IsHelper(os.Args) { // starting a command pi confines: nothing else of pi runs
		os.Exit(sandbox.RunHelper(os.Args, os.Stderr))
	}
	// What leaves the tools' process groups (setsid, a daemon an MCP server forks) is adopted
	// by pi once its parent is gone (Linux), so that exitKillingDescendants still finds it.
	proc.AdoptOrphans()
	// SIGHUP (the terminal or the ssh session went away) ends pi as SIGTERM does: the run is
	// aborted and the tools' process groups are killed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	starter := &ollamasetup.Starter{} // an `ollama serve` the user asked pi to leave running survives it
	go exitSoonAfter(ctx, exitGrace, starter)
	go proc.ReapOrphans(ctx)
	code := runStarting(ctx, starter, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	exitKillingDescendants(code, starter.DetachedPIDs()...)
}

// exitKillingDescendants ends pi and every process it started that still runs, but for keep
// (a detached `ollama serve`): nothing else pi or its tools started outlives it.
func exitKillingDescendants(code int, keep ...int) {
	proc.KillDescendants(keep...)
	os.Exit(code)
}

// exitGrace is how long pi may take to wind down after a signal before it exits anyway.
const exitGrace = 2 * time.Second

// exitSoonAfter ends the process once grace has passed after ctx ended (a signal), whatever
// is still running: a script that will not stop must not keep pi alive. Sessions are
// append-only, so nothing written is lost.
func exitSoonAfter(ctx context.Context, grace time.Duration, starter *ollamasetup.Starter) {
	<-ctx.Done()
	time.Sleep(grace)
	fmt.Fprintln(os.Stderr, "pi: still winding down after the signal; exiting now")
	exitKillingDescendants(1, starter.DetachedPIDs()...)
}

// run is pi without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runStarting(ctx, &ollamasetup.Starter{}, args, stdin, stdout, stderr)
}

// runStarting is run with the servers pi starts for the user's Ollama kept in starter: the
// ones for this run are stopped before it returns.
func runStarting(ctx context.Context, starter *ollamasetup.Starter, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if c, ok := ownArgsCommand(args); ok {
		if !c.ownHelp && c.usage != "" && wantsHelp(args[1:]) {
			fmt.Fprint(stdout, commandHelp(c))
			return 0
		}
		return c.run(ctx, invocation{word: args[0], args: args[1:], stdout: stdout, stderr: stderr})
	}
	opts, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, strings.Replace(helpText, "{{commands}}\n", usageText()+"\n", 1))
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 2
	}
	if code := checkOptions(opts, stderr); code != 0 {
		return code
	}
	if opts.connect != "" {
		return runConnected(ctx, opts, stdin, stdout, stderr)
	}
	if opts.version {
		fmt.Fprintln(stdout, versionText())
		return 0
	}
	if opts.exportRef != "" {
		return runExport(ctx, opts, stdout, stderr)
	}
	if opts.listModels {
		return runListModels(ctx, opts.trust, stdout, stderr)
	}
	if c, ok := wordCommand(opts); ok {
		return c.run(ctx, invocation{word: opts.messages[0], args: opts.messages[1:], opts: opts, stdout: stdout, stderr: stderr})
	}
	interactive := opts.mode == "" && !opts.print && isTerminal(stdin)
	if opts.resume && !interactive {
		return runListSessions(ctx, opts, stdout, stderr)
	}
	return runSession(ctx, opts, interactive, starter, stdin, stdout, stderr)
}

// runSession builds the live session opts describe and runs it in its mode: the terminal UI,
// RPC, JSON or print.
func runSession(ctx context.Context, opts *cliOptions, interactive bool, starter *ollamasetup.Starter, stdin io.Reader, stdout, stderr io.Writer) int {
	defer starter.StopChildren(stderr)
	h, code := startSession(ctx, opts, interactive, starter, stderr)
	if h == nil {
		return code
	}
	defer h.Close()
	opts.messages = h.TakeFlagWords(opts.messages) // before the prompts: the scripts' string flags take words
	if code := gatherPrompts(ctx, opts, interactive, stdin, stderr); code != 0 {
		return code
	}
	switch {
	case interactive:
		return runInteractiveMode(ctx, h, opts.messages, opts.images, opts.resume, ollamaDialog(opts, h.Config(), starter), stderr)
	case opts.mode == "rpc":
		return runRPCMode(ctx, h, opts.fullUpdates, stdin, stdout, stderr)
	case opts.mode == "json":
		return runJSONMode(ctx, h, opts.fullUpdates, opts.messages, opts.images, stdout, stderr)
	case len(opts.messages) == 0:
		fmt.Fprintln(stderr, "pi: nothing to do: give a prompt, e.g. pi -p \"explain main.go\"")
		return 2
	}
	return runPrintMode(ctx, h, opts.messages, opts.images, stdout, stderr)
}

// startSession builds the live session; outside the terminal UI, where nobody can be asked, a
// local Ollama that is not serving is first started as [ollama] start says, or a line says
// what to run. nil comes with the exit code.
func startSession(ctx context.Context, opts *cliOptions, interactive bool, starter *ollamasetup.Starter, stderr io.Writer) (*live.Session, int) {
	if !interactive {
		if code := prepareOllama(ctx, opts, starter, stderr); code != 0 {
			return nil, code
		}
	}
	h, err := live.New(ctx, opts.liveOptions(interactive, stderr))
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		if hint := servedHint(ctx, err); hint != "" {
			fmt.Fprintln(stderr, "pi:", hint)
		}
		return nil, 1
	}
	return h, 0
}

// checkOptions refuses flag values pi cannot use; it returns the exit code, 0 when all is well.
func checkOptions(o *cliOptions, stderr io.Writer) int {
	if o.mode != "" && o.mode != "text" && o.mode != "json" && o.mode != "rpc" {
		fmt.Fprintf(stderr, "pi: unknown mode %q (use text, json or rpc)\n", o.mode)
		return 2
	}
	if o.thinking != "" && !config.IsThinkingLevel(o.thinking) {
		fmt.Fprintf(stderr, "pi: --thinking %q: want one of %s\n", o.thinking, strings.Join(config.ThinkingLevels(), ", "))
		return 2
	}
	if o.permissions != "" && !config.IsPermissionMode(o.permissions) {
		fmt.Fprintf(stderr, "pi: --permissions %q: want %s\n", o.permissions, strings.Join(config.PermissionModes(), ", "))
		return 2
	}
	if o.mode == "rpc" && len(o.files) > 0 {
		fmt.Fprintln(stderr, "pi: @file arguments need a prompt to join; in rpc mode send images with the prompt command")
		return 2
	}
	return 0
}

// gatherPrompts completes the prompts: the files their @words name (outside RPC mode), then
// piped input in front of the first (outside the terminal UI and RPC mode, whose stdin is the
// user or the commands), then the @file arguments. It returns the exit code, 0 when all is well.
func gatherPrompts(ctx context.Context, o *cliOptions, interactive bool, stdin io.Reader, stderr io.Writer) int {
	if o.mode != "rpc" { // before the piped input joins: its @words are not the user's
		if err := attachTypedArgs(ctx, o, stderr); err != nil {
			fmt.Fprintln(stderr, "pi:", err)
			return 1
		}
	}
	if !interactive && o.mode != "rpc" {
		piped, err := prompt.ReadPiped(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "pi: reading standard input:", err)
			return 1
		}
		if piped != "" {
			o.messages = prompt.MergePiped(piped, o.messages)
		}
	}
	if err := attachArgs(o); err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 2
	}
	return 0
}

// isTerminal asks the tty driver; a mode check alone would take /dev/null for a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}
