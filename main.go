// Command pi is a terminal coding agent for people who run language models on their own
// machine. main.go holds flags, configuration and wiring only; the agent itself is in loop.go.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"pi/eval"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
	"pi/tools"

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
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
	app, err := setup(ctx, opts, interactive, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	defer app.close()
	switch {
	case interactive:
		return runInteractiveMode(ctx, app, opts.messages, opts.resume)
	case opts.mode == "rpc":
		return runRPCMode(ctx, app, stdin, stdout, stderr)
	case opts.mode == "json":
		return runJSONMode(ctx, app, opts.messages, stdout, stderr)
	case len(opts.messages) == 0:
		fmt.Fprintln(stderr, "pi: nothing to do: give a prompt, e.g. pi -p \"explain main.go\"")
		return 2
	}
	return runPrintMode(ctx, app, opts.messages, stdout, stderr)
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
	cfg, err := LoadConfig(piHomeDir(), cwd)
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

// app is a wired-up agent ready for a mode to drive.
type app struct {
	agent  *Agent
	cwd    string
	piHome string
	cfg    *Config
	model  provider.Model
	stderr io.Writer
	sess   *session.Session
	lua    scripting
	// modelProblem says why no model could be set up, for the terminal UI to show.
	modelProblem string
	// allowlist names the tools to activate (--tools, or tools in pi.toml); empty means the
	// default built-ins plus every script tool. noTools is --no-tools.
	allowlist []string
	noTools   bool
	// compactHook lets scripts cancel a compaction or supply its summary.
	compactHook func(context.Context, session.Reason, *session.Preparation) (session.HookResult, error)
	// ops is the state of the session and model operations (appops.go).
	ops opsState
}

func (a *app) close() {
	a.closeLua()
	if a.sess != nil {
		if err := a.sess.Close(); err != nil {
			fmt.Fprintln(a.stderr, "pi: closing the session:", err)
		}
	}
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

// setup loads the configuration and wires the agent. Without a usable model, the terminal UI
// still starts (interactive) and says what to do; the other modes fail with that advice.
func setup(ctx context.Context, o *cliOptions, interactive bool, stderr io.Writer) (*app, error) {
	cwd, err := o.cwd, error(nil)
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("finding the working directory: %w", err)
		}
	}
	a := &app{cwd: cwd, piHome: piHomeDir(), stderr: stderr}
	if a.cfg, err = LoadConfig(a.piHome, cwd); err != nil {
		return nil, err
	}
	for _, w := range a.cfg.Warnings {
		fmt.Fprintln(stderr, "pi: warning:", w)
	}
	prov, model, err := resolveProvider(ctx, o, a.cfg)
	if err != nil && (!interactive || prov == nil) {
		return nil, err
	}
	if err != nil {
		a.modelProblem = err.Error() // the terminal UI starts anyway and shows this first
	}
	a.model = model
	thinking := o.thinking
	if thinking == "" {
		thinking = a.cfg.ThinkingLevel(o.model)
	}
	var askTrust func(context.Context, string) (bool, error)
	if interactive {
		askTrust = askTrustOnTerminal(os.Stdin, stderr) // interactive means stdin is the terminal
	}
	if err := a.startLua(ctx, o, askTrust); err != nil {
		return nil, err
	}
	active, err := a.buildTools(o)
	if err != nil {
		return nil, err
	}
	hooks := Hooks{PrepareNextTurn: a.prepareNextTurn, ConvertToLLM: session.ToLLM}
	a.luaHooks(&hooks)
	a.compactHook = a.luaBeforeCompact
	a.agent = NewAgent(AgentConfig{Provider: prov, Model: model, Thinking: thinking,
		SystemPrompt: BuildSystemPrompt(withTools(a.lua.parts, active)), Tools: active,
		SteeringMode: QueueMode(a.cfg.SteeringMode), FollowUpMode: QueueMode(a.cfg.FollowUpMode), Hooks: hooks})
	a.agent.Subscribe(a.emitToScripts)
	if r, ok := prov.(*provider.Retrying); ok {
		r.Notify = a.agent.RetryNotice
	}
	sess, err := a.openSession(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := a.attachSession(sess, o); err != nil {
		sess.Close()
		return nil, err
	}
	a.lua.rt.Emit(ctx, "session_start", map[string]any{"reason": "startup"})
	return a, nil
}

// buildTools makes the built-in tools, picks the active ones and gathers the system prompt's
// other inputs.
func (a *app) buildTools(o *cliOptions) ([]tools.Tool, error) {
	env, err := tools.NewEnv(a.cwd)
	if err != nil {
		return nil, err
	}
	env.ImagesAllowed = func() bool { m := a.agent.Model(); return m.AcceptsImages() }
	if a.cfg.Bash.TimeoutSeconds > 0 {
		env.BashTimeout = time.Duration(a.cfg.Bash.TimeoutSeconds) * time.Second
	}
	env.Shell = a.cfg.Bash.Shell
	for _, name := range tools.AllNames() {
		t, err := tools.New(name, env)
		if err != nil {
			return nil, err
		}
		a.lua.builtins = append(a.lua.builtins, t)
	}
	switch {
	case o.noTools:
		a.noTools = true
	case o.toolList != "":
		a.allowlist = splitList(o.toolList)
	default:
		a.allowlist = a.cfg.Tools
	}
	active, err := a.selectActive(true)
	if err != nil {
		return nil, err
	}
	parts := PromptParts{Body: o.systemPrompt}
	fileBody, fileAppend, err := LoadPromptFiles(a.piHome, a.cwd)
	if err != nil {
		return nil, err
	}
	if parts.Body == "" {
		parts.Body = fileBody
	}
	parts.Append = []string{fileAppend, o.appendPrompt}
	if !o.noContextFiles {
		if parts.ContextFiles, err = LoadContextFiles(a.piHome, a.cwd); err != nil {
			return nil, err
		}
	}
	a.lua.parts = parts
	return active, nil
}

// selectActive picks the active tools: the allow-list when one was given, else the default
// built-ins plus every tool the scripts registered. strict reports names nothing provides.
func (a *app) selectActive(strict bool) ([]tools.Tool, error) {
	if a.noTools {
		return nil, nil
	}
	available := a.availableTools()
	byName := make(map[string]tools.Tool, len(available))
	for _, t := range available {
		byName[t.Info().Name] = t
	}
	var active []tools.Tool
	if len(a.allowlist) > 0 {
		for _, n := range a.allowlist {
			if t, ok := byName[n]; ok {
				active = append(active, t)
			} else if strict {
				return nil, fmt.Errorf("tool %q: no built-in or script provides it (built in: %s)", n, strings.Join(tools.AllNames(), ", "))
			}
		}
		return active, nil
	}
	builtin := map[string]bool{}
	for _, n := range tools.AllNames() {
		builtin[n] = true
	}
	for _, t := range available {
		n := t.Info().Name
		if !builtin[n] || slices.Contains(tools.DefaultNames(), n) {
			active = append(active, t)
		}
	}
	return active, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// piHomeDir is $PI_HOME, else ~/.pi.
func piHomeDir() string {
	if h := os.Getenv("PI_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".pi")
}

// resolveProvider picks the provider and model from the flags and pi.toml, wrapped so that
// transient failures are retried. A failure to find a model is returned with the
// unavailable provider, so the terminal UI can still start and say what to do.
func resolveProvider(ctx context.Context, o *cliOptions, cfg *Config) (provider.Provider, provider.Model, error) {
	if o.fauxScript != "" || o.providerName == "faux" {
		return fauxProvider(o)
	}
	spec := o.model
	if o.providerName != "" && !strings.Contains(spec, "/") {
		spec = strings.TrimSuffix(o.providerName+"/"+spec, "/")
	}
	p, model, err := cfg.ResolveModel(ctx, spec)
	if err != nil {
		return unavailable{err}, provider.Model{ID: "none", Provider: "none"}, err
	}
	return &provider.Retrying{Provider: p, Policy: cfg.RetryPolicy()}, model, nil
}

func fauxProvider(o *cliOptions) (provider.Provider, provider.Model, error) {
	if o.fauxScript == "" {
		return nil, provider.Model{}, errors.New("--provider faux needs --faux-script <file.json>")
	}
	p, err := faux.LoadScript(o.fauxScript)
	if err != nil {
		return nil, provider.Model{}, err
	}
	id := strings.TrimPrefix(o.model, "faux/")
	if id == "" {
		id = "faux-1"
	}
	return p, provider.Model{ID: id, Provider: "faux", API: "faux", ContextWindow: 128000, MaxTokens: 16384,
		Input: []string{"text", "image"}}, nil
}

// unavailable stands in for a model that could not be set up; every call explains why.
type unavailable struct{ err error }

func (u unavailable) Stream(_ context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	b := provider.NewBuilder(&req.Model, emit)
	b.Start()
	return b.Fail(provider.StopError, u.err.Error())
}
