package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"pi/doctor"
	"pi/eval"
	"pi/lua"
	"pi/packages"
	"pi/remote"
	"pi/session"
)

// A command is one `pi <word>` subcommand, its usage beside the code that runs it (as cmd/go's
// base.Command does). -h's Usage section lists the table in order.
type command struct {
	words []string // the word, then its aliases
	usage string   // its lines in -h's Usage section
	// ownArgs: the words after it are its own (`pi eval -h`); otherwise pi's flags come first
	// and the word stands alone after them (`pi --session-dir d sessions`, `pi trust d`).
	ownArgs bool
	// ownHelp: it answers -h itself (pi eval -h); for the other ownArgs commands, -h prints
	// their usage lines, as the ones that answer it do.
	ownHelp bool
	maxArgs int // words allowed after it when !ownArgs
	run     func(ctx context.Context, c invocation) int
}

// invocation is what a command runs with: its own arguments, or pi's parsed flags.
type invocation struct {
	word           string      // the word that named the command
	args           []string    // the words after it
	opts           *cliOptions // parsed flags; nil for an ownArgs command
	stdout, stderr io.Writer
}

// commands is the subcommand table.
func commands() []command {
	return []command{
		{words: []string{"sessions"}, run: func(ctx context.Context, c invocation) int {
			return runListSessions(ctx, c.opts, c.stdout, c.stderr)
		}, usage: `  pi sessions [--all]            list this folder's sessions (with --session-dir: that folder's;
                                 with --all: the TypeScript pi's of this folder, ~/.pi/agent, too)
` + session.StoreUsage},
		{words: []string{"serve"}, ownArgs: true, run: func(ctx context.Context, c invocation) int {
			return runServe(ctx, c.args, c.stdout, c.stderr)
		}, usage: `  pi serve [--socket path] [flags]  hold live sessions behind a unix socket for clients to attach
                                 to (default $XDG_RUNTIME_DIR/pi/server.sock); the flags configure
                                 every session; --status lists the live ones, --stop stops it (the
                                 runs are aborted; with --wait they finish first); --token-file f
                                 requires f's token of every client; clients inside pi's sandbox
                                 (no_new_privs) are refused unless --allow-no-new-privs`},
		{words: []string{"attach"}, ownArgs: true, run: func(ctx context.Context, c invocation) int {
			return remote.Attach(ctx, c.args, piHomeDir(), c.stderr)
		}, usage: `  pi attach [--socket path] [id] the terminal UI on a session of pi serve (default: this folder's
                                 latest, else a new one); ctrl+d detaches, the run goes on`},
		{words: []string{"eval"}, ownArgs: true, ownHelp: true, run: func(ctx context.Context, c invocation) int {
			return eval.Main(ctx, c.args, c.stdout, c.stderr, eval.Options{Drive: driveEval, CheckModel: checkEvalModel})
		}, usage: `  pi eval --model p/m [...]      run the coding tasks against a model (pi eval -h)`},
		{words: []string{"doctor"}, ownArgs: true, ownHelp: true, run: func(ctx context.Context, c invocation) int {
			cwd, _ := os.Getwd()
			return doctor.Main(ctx, c.args, c.stdout, c.stderr, doctor.Options{PiHome: piHomeDir(), Cwd: cwd,
				Eval: eval.Options{Drive: driveEval, CheckModel: checkEvalModel}})
		}, usage: `  pi doctor [provider/model]     measure how a model works with pi and suggest its pi.toml block
                                 (pi doctor -h)`},
		{words: []string{"trust", "untrust"}, maxArgs: 1, run: runTrustCommand,
			usage: `  pi trust [folder], pi untrust [folder]  let a project's .pi/init.lua run, or not (default: here)`},
		{words: []string{"install", "remove", "uninstall", "update", "list"}, ownArgs: true, run: runPackageCommand,
			usage: `  pi install [-l] <git URL | folder>[@ref], pi remove|update|list [-l]  pi packages of scripts`},
		{words: []string{"checkpoints"}, ownArgs: true, run: runScriptSubcommand, // scriptcommand.go
			usage: `  pi checkpoints list|diff|restore [...]  the project's file snapshots (pi checkpoints help)`},
		{words: []string{"version"}, run: func(_ context.Context, c invocation) int {
			fmt.Fprintln(c.stdout, versionText())
			return 0
		}, usage: `  pi -v, --version, pi version`},
	}
}

// findCommand is the command named by word, if any.
func findCommand(word string) (command, bool) {
	for _, c := range commands() {
		if slices.Contains(c.words, word) {
			return c, true
		}
	}
	return command{}, false
}

// ownArgsCommand is the command that reads its own arguments named by args' first word, if
// any: it runs before pi's flags are parsed.
func ownArgsCommand(args []string) (command, bool) {
	if len(args) == 0 {
		return command{}, false
	}
	if len(args) > 1 && args[0] == "sessions" && session.IsStoreCommand(args[1]) {
		return command{ownArgs: true, run: runSessionStore}, true // sessionstore.go
	}
	c, ok := findCommand(args[0])
	return c, ok && c.ownArgs
}

// wordCommand is the command after the flags: `pi [flags] word [arg]` when no mode was chosen
// (`pi -p sessions` is a prompt).
func wordCommand(o *cliOptions) (command, bool) {
	if len(o.messages) == 0 || o.print || o.mode != "" {
		return command{}, false
	}
	c, ok := findCommand(o.messages[0])
	return c, ok && !c.ownArgs && len(o.messages)-1 <= c.maxArgs
}

// wantsHelp reports whether a command's arguments ask for its help.
func wantsHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "--help" || a == "-help" })
}

// commandHelp is `pi <word> -h` of a command that does not answer -h itself: its usage lines.
func commandHelp(c command) string {
	return "Usage:\n" + c.usage + "\n\npi -h lists pi's flags and the other commands.\n"
}

// usageText is -h's list of subcommands, from the table.
func usageText() string {
	var lines []string
	for _, c := range commands() {
		lines = append(lines, c.usage)
	}
	return strings.Join(lines, "\n")
}

// runTrustCommand is `pi trust [folder]` and `pi untrust [folder]`.
func runTrustCommand(_ context.Context, c invocation) int {
	msg, err := lua.TrustFolder(piHomeDir(), c.args, c.word == "trust")
	if err != nil {
		fmt.Fprintln(c.stderr, "pi:", err)
		return 1
	}
	fmt.Fprintln(c.stdout, msg)
	return 0
}

// runPackageCommand is `pi install|remove|update|list`: packages.Main wants the word too.
func runPackageCommand(ctx context.Context, c invocation) int {
	cwd, _ := os.Getwd()
	return packages.Main(ctx, append([]string{c.word}, c.args...), piHomeDir(), cwd, c.stdout, c.stderr)
}
