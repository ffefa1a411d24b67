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
	"strings"
	"syscall"

	"pi/provider"
	"pi/provider/faux"
	"pi/tools"
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
	messages       []string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is pi without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 2
	}
	if piped, err := readPipedStdin(stdin); err != nil {
		fmt.Fprintln(stderr, "pi: reading standard input:", err)
		return 1
	} else if piped != "" {
		opts.messages = mergePiped(piped, opts.messages)
	}
	app, err := setup(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "pi:", err)
		return 1
	}
	switch {
	case opts.mode == "json":
		return runJSONMode(ctx, app, opts.messages, stdout, stderr)
	case opts.mode == "" || opts.mode == "text" || opts.print:
		if len(opts.messages) == 0 {
			fmt.Fprintln(stderr, "pi: nothing to do: give a prompt, e.g. pi -p \"explain main.go\" (the interactive terminal UI is not built yet)")
			return 2
		}
		return runPrintMode(ctx, app, opts.messages, stdout, stderr)
	}
	fmt.Fprintf(stderr, "pi: unknown mode %q (use text or json)\n", opts.mode)
	return 2
}

func parseArgs(args []string, stderr io.Writer) (*cliOptions, error) {
	o := &cliOptions{}
	fs := flag.NewFlagSet("pi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.print, "p", false, "print mode: run the prompt(s), print the final answer, exit")
	fs.BoolVar(&o.print, "print", false, "same as -p")
	fs.StringVar(&o.mode, "mode", "", "output mode: text (default) or json (one event per line)")
	fs.StringVar(&o.providerName, "provider", "", "provider name from pi.toml")
	fs.StringVar(&o.model, "model", "", "model as provider/model[:thinking]")
	fs.StringVar(&o.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh")
	fs.StringVar(&o.systemPrompt, "system-prompt", "", "replace the body of the system prompt")
	fs.StringVar(&o.appendPrompt, "append-system-prompt", "", "text added to the system prompt")
	fs.StringVar(&o.toolList, "tools", "", "comma-separated tools to enable (default read,bash,edit,write)")
	fs.BoolVar(&o.noTools, "no-tools", false, "enable no tools")
	fs.BoolVar(&o.noContextFiles, "no-context-files", false, "do not load AGENTS.md / CLAUDE.md")
	fs.StringVar(&o.fauxScript, "faux-script", "", "test aid: replay scripted replies from a JSON file instead of calling a model")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pi [flags] [prompt ...]")
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
	agent *Agent
	cwd   string
	model provider.Model
}

func setup(ctx context.Context, o *cliOptions) (*app, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("finding the working directory: %w", err)
	}
	piHome := piHomeDir()
	prov, model, err := resolveProvider(ctx, o)
	if err != nil {
		return nil, err
	}
	env, err := tools.NewEnv(cwd)
	if err != nil {
		return nil, err
	}
	env.ImagesAllowed = model.AcceptsImages
	active, err := selectTools(o, env)
	if err != nil {
		return nil, err
	}
	parts := PromptParts{Tools: active, Body: o.systemPrompt}
	fileBody, fileAppend, err := LoadPromptFiles(piHome, cwd)
	if err != nil {
		return nil, err
	}
	if parts.Body == "" {
		parts.Body = fileBody
	}
	parts.Append = []string{fileAppend, o.appendPrompt}
	if !o.noContextFiles {
		if parts.ContextFiles, err = LoadContextFiles(piHome, cwd); err != nil {
			return nil, err
		}
	}
	agent := NewAgent(AgentConfig{Provider: prov, Model: model, Thinking: o.thinking,
		SystemPrompt: BuildSystemPrompt(parts), Tools: active})
	return &app{agent: agent, cwd: cwd, model: model}, nil
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

func selectTools(o *cliOptions, env *tools.Env) ([]tools.Tool, error) {
	if o.noTools {
		return nil, nil
	}
	names := tools.DefaultNames
	if o.toolList != "" {
		names = strings.Split(o.toolList, ",")
	}
	var active []tools.Tool
	for _, n := range names {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		t, err := tools.New(n, env)
		if err != nil {
			return nil, fmt.Errorf("--tools: %w", err)
		}
		active = append(active, t)
	}
	return active, nil
}

// resolveProvider picks the provider and model from the flags.
func resolveProvider(ctx context.Context, o *cliOptions) (provider.Provider, provider.Model, error) {
	if o.fauxScript != "" || o.providerName == "faux" {
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
	return nil, provider.Model{}, errors.New("no model configured: model providers are not wired in yet; use --faux-script for a scripted run")
}
