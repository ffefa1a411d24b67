package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"pi/internal/proc"
	"pi/provider"
)

// BashDetails is the details of a bash result.
type BashDetails struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
}

func newBash(env *Env) Tool {
	return &Func{Spec: shellToolInfo(env, "bash", "bash", "a shell command"),
		Run: func(ctx context.Context, _ string, args map[string]any, onUpdate func(Result)) (Result, error) {
			return runBash(ctx, env, args, onUpdate)
		}, Changes: shellChanges(env)}
}

// shellToolInfo describes a shell tool (bash, powershell): same arguments, same limits.
func shellToolInfo(env *Env, name, shell, what string) Info {
	return Info{
		Name:        name,
		Description: "Run a " + shell + " command in the working directory; stdout and stderr merged, long output cut to its end.",
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"command":{"type":"string"},`+
			`"timeout":{"type":"number","exclusiveMinimum":0,"description":"Seconds (default %g)"}},`+
			`"required":["command"]}`, env.bashTimeout().Seconds())),
		Guidelines: []string{"Use " + name + " to run programs, tests and builds, not to read or edit files."},
	}
}

func bashArgs(env *Env, args map[string]any) (string, time.Duration, error) {
	command, ok, err := argString(args, "command")
	if err != nil {
		return "", 0, err
	}
	if !ok || strings.TrimSpace(command) == "" {
		return "", 0, errors.New(`argument "command" is required`)
	}
	timeout := env.bashTimeout()
	switch v := args["timeout"].(type) {
	case nil:
	case float64:
		if v > 0 && v < math.MaxInt64/float64(time.Second) {
			timeout = time.Duration(v * float64(time.Second))
		}
	case int:
		if v > 0 {
			timeout = time.Duration(v) * time.Second
		}
	default:
		return "", 0, fmt.Errorf(`argument "timeout" must be a number of seconds, got %T`, v)
	}
	return command, timeout, nil
}

func runBash(ctx context.Context, env *Env, args map[string]any, onUpdate func(Result)) (Result, error) {
	return runShellTool(ctx, env, proc.ShellSpec{Shell: env.Shell}, args, onUpdate)
}

// runShellTool runs the command of a shell tool's call with the shell in base: the bash tool,
// and the powershell tool with its own shell.
func runShellTool(ctx context.Context, env *Env, spec proc.ShellSpec, args map[string]any, onUpdate func(Result)) (Result, error) {
	command, timeout, err := bashArgs(env, args)
	if err != nil {
		return Result{}, err
	}
	if fi, err := os.Stat(env.Cwd); err != nil {
		return Result{}, fmt.Errorf("working directory: %w", err)
	} else if !fi.IsDir() {
		return Result{}, fmt.Errorf("working directory %s is not a directory", env.Cwd)
	}
	spec.Command, spec.Dir, spec.Timeout, spec.Spill, spec.Confine = command, env.Cwd, timeout, env.Spill, env.Confine
	l := env.Limits()
	spec.MaxBytes, spec.MaxLines = l.MaxBytes, l.MaxLines
	if env.Environ != nil {
		spec.Env = env.Environ()
	}
	if onUpdate != nil {
		spec.OnUpdate = func(o proc.Output) { onUpdate(shellResult(o, l)) }
	}
	out, err := proc.RunShell(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	res := shellResult(out, l)
	switch {
	case out.Aborted:
		appendText(&res, "Command aborted")
	case out.TimedOut:
		appendText(&res, fmt.Sprintf("Command timed out after %g seconds", timeout.Seconds()))
	case out.Signal != "":
		appendText(&res, "Command was killed by a signal: "+out.Signal)
	case out.ExitCode != nil && *out.ExitCode != 0:
		appendText(&res, fmt.Sprintf("Command exited with code %d", *out.ExitCode))
	default:
		return res, nil
	}
	res.IsError = true
	return res, nil
}

func appendText(r *Result, s string) {
	t := &r.Content[0].Text
	if *t == "(no output)" {
		*t = s
	} else {
		*t = strings.TrimSuffix(*t, "\n") + "\n\n" + s
	}
}

// ShellTail is what pi shows of a shell command's output, the bash tool and the user's !cmd
// alike: its tail within DefaultMaxLines and DefaultMaxBytes as valid UTF-8, and what was cut.
// o must come from proc.RunShell with those limits.
func ShellTail(o proc.Output) (string, Truncation) { return shellTail(o, DefaultLimits()) }

// shellTail is ShellTail within l, for output that proc.RunShell kept within l.
func shellTail(o proc.Output, l Limits) (string, Truncation) {
	text, tr := TruncateTail(o.Tail, l.MaxLines, l.MaxBytes)
	tr.TotalBytes, tr.TotalLines = o.TotalBytes, o.TotalLines
	tr.Truncated = tr.Truncated || len(o.Tail) < o.TotalBytes
	return strings.ToValidUTF8(text, "\uFFFD"), tr
}

// shellResult renders the output so far: its tail within the limits and a notice of what was cut.
func shellResult(o proc.Output, l Limits) Result {
	text, tr := shellTail(o, l)
	if !tr.Truncated {
		if text == "" {
			text = "(no output)"
		}
		return Result{Content: []provider.Block{provider.Text(text)}}
	}
	text = strings.TrimSuffix(text, "\n") + "\n\n" + spillNotice(o, &tr)
	return Result{Content: []provider.Block{provider.Text(text)},
		Details: BashDetails{Truncation: &tr, FullOutputPath: o.FullOutputPath}}
}

func spillNotice(o proc.Output, tr *Truncation) string {
	where := "Full output: " + o.FullOutputPath
	if o.FullOutputPath == "" {
		where = "The full output could not be saved"
		if o.SpillErr != nil {
			where += ": " + o.SpillErr.Error()
		}
	}
	last := tr.TotalLines
	first := last - tr.OutputLines + 1
	switch {
	case tr.LastLinePartial:
		return fmt.Sprintf("[Last %s of line %d shown (the line is longer). %s]", FormatSize(tr.OutputBytes), last, where)
	case tr.TruncatedBy == "bytes":
		return fmt.Sprintf("[Lines %d-%d of %d shown (%s limit). %s]", first, last, last, FormatSize(tr.MaxBytes), where)
	}
	return fmt.Sprintf("[Lines %d-%d of %d shown. %s]", first, last, last, where)
}
