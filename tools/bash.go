package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"pi/provider"
)

const (
	// updateInterval paces partial output: often enough to feel live, rarely enough for a UI.
	updateInterval = 100 * time.Millisecond
	// drainAfterExit is how long output is still read once the shell has exited. A background
	// process may keep the pipe open for ever; waiting for EOF is what makes pi hang.
	drainAfterExit = 250 * time.Millisecond
)

// BashDetails is the details of a bash result.
type BashDetails struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
}

func newBash(env *Env) Tool {
	return &Func{Spec: Info{
		Name: "bash",
		Description: fmt.Sprintf("Run a command with bash in the working directory; stdout and stderr are merged. "+
			"Output keeps the last %d lines or %s.", DefaultMaxLines, FormatSize(DefaultMaxBytes)),
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"command":{"type":"string","description":"The command to run"},`+
			`"timeout":{"type":"number","exclusiveMinimum":0,"description":"Timeout in seconds (default %g)"}},`+
			`"required":["command"]}`, env.bashTimeout().Seconds())),
		Snippet:    "Run a shell command",
		Guidelines: []string{"Use bash to run programs, tests and builds, not to read or edit files."},
	}, Run: func(ctx context.Context, _ string, args map[string]any, onUpdate func(Result)) (Result, error) {
		return runBash(ctx, env, args, onUpdate)
	}}
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

func (e *Env) shell() string {
	if e.Shell != "" {
		return e.Shell
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

func runBash(ctx context.Context, env *Env, args map[string]any, onUpdate func(Result)) (Result, error) {
	command, timeout, err := bashArgs(env, args)
	if err != nil {
		return Result{}, err
	}
	if fi, err := os.Stat(env.Cwd); err != nil {
		return Result{}, fmt.Errorf("working directory: %w", err)
	} else if !fi.IsDir() {
		return Result{}, fmt.Errorf("working directory %s is not a directory", env.Cwd)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sink := &outputSink{tempDir: env.TempDir}
	defer sink.closeSpill()
	waitErr, stopped, err := runShell(runCtx, env, command, sink, onUpdate)
	if err != nil {
		return Result{}, err
	}
	res := sink.result()
	switch {
	case stopped && ctx.Err() != nil:
		appendText(&res, "Command aborted")
	case stopped:
		appendText(&res, fmt.Sprintf("Command timed out after %g seconds", timeout.Seconds()))
	case waitErr != nil:
		var exit *exec.ExitError
		if !errors.As(waitErr, &exit) {
			return Result{}, fmt.Errorf("running %q: %w", command, waitErr)
		}
		if sig := killedBy(exit); sig != "" {
			appendText(&res, "Command was killed by a signal: "+sig)
		} else {
			appendText(&res, fmt.Sprintf("Command exited with code %d", exit.ExitCode()))
		}
	default:
		return res, nil
	}
	res.IsError = true
	return res, nil
}

// runShell runs command in its own process group, feeding merged output to sink and partial
// results to onUpdate. It returns when the shell has exited (not when every descendant has
// closed the pipe); stopped says the group was killed because ctx ended.
func runShell(ctx context.Context, env *Env, command string, sink *outputSink, onUpdate func(Result)) (waitErr error, stopped bool, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, false, fmt.Errorf("creating the output pipe: %w", err)
	}
	defer pr.Close()
	cmd := exec.Command(env.shell(), "-c", command)
	cmd.Dir = env.Cwd
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe: stdout and stderr interleave as written
	ownProcessGroup(cmd)
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return nil, false, fmt.Errorf("starting %s: %w", env.shell(), err)
	}
	copied := make(chan struct{})
	go func() { io.Copy(sink, pr); close(copied) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(updateInterval)
	defer tick.Stop()
	var lastUpdate time.Time
wait:
	for {
		select {
		case waitErr = <-exited:
			break wait
		case <-ctx.Done():
			killGroup(cmd)
			waitErr, stopped = <-exited, true
			break wait
		case now := <-tick.C:
			// A late tick followed by a punctual one would come early: keep the full interval.
			if onUpdate != nil && now.Sub(lastUpdate) >= updateInterval && sink.takeChanged() {
				lastUpdate = time.Now()
				onUpdate(sink.result())
			}
		}
	}
	if pr.SetReadDeadline(time.Now().Add(drainAfterExit)) != nil {
		pr.Close() // not pollable: stop reading now rather than wait for every descendant
	}
	<-copied
	return waitErr, stopped, nil
}

func appendText(r *Result, s string) {
	t := &r.Content[0].Text
	if *t == "(no output)" {
		*t = s
	} else {
		*t = strings.TrimSuffix(*t, "\n") + "\n\n" + s
	}
}

// outputSink keeps the tail of a command's output in bounded memory and, once the output is
// over the limits, copies all of it to a temporary file so nothing is lost.
type outputSink struct {
	tempDir string

	mu        sync.Mutex
	buf       []byte // the output's tail; the whole output until it passes 2*DefaultMaxBytes
	total     int
	newlines  int
	lastByte  byte
	changed   bool
	spill     *os.File
	spillPath string
	spillErr  error
}

func (s *outputSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	s.total += len(p)
	s.newlines += bytes.Count(p, []byte{'\n'})
	if len(p) > 0 {
		s.lastByte, s.changed = p[len(p)-1], true
	}
	if s.spill == nil && s.spillErr == nil && (s.total > DefaultMaxBytes || s.lines() > DefaultMaxLines) {
		// buf still holds everything: trimming starts only past twice the byte limit
		s.spill, s.spillErr = os.CreateTemp(s.tempDir, "pi-bash-*.log")
		if s.spill != nil {
			s.spillPath = s.spill.Name()
			_, s.spillErr = s.spill.Write(s.buf)
		}
	} else if s.spill != nil && s.spillErr == nil {
		_, s.spillErr = s.spill.Write(p)
	}
	if len(s.buf) > 4*DefaultMaxBytes {
		keep := 2 * DefaultMaxBytes
		s.buf = append(s.buf[:0], s.buf[len(s.buf)-keep:]...)
	}
	return len(p), nil
}

// lines counts the output's lines as countLines does; s.mu must be held.
func (s *outputSink) lines() int {
	if s.total > 0 && s.lastByte != '\n' {
		return s.newlines + 1
	}
	return s.newlines
}

func (s *outputSink) takeChanged() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.changed
	s.changed = false
	return c
}

func (s *outputSink) closeSpill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spill != nil {
		s.spill.Close()
	}
}

// result renders the output so far: its tail within the limits and a notice of what was cut.
func (s *outputSink) result() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, tr := TruncateTail(string(s.buf), DefaultMaxLines, DefaultMaxBytes)
	text = strings.ToValidUTF8(text, "\uFFFD")
	tr.TotalBytes, tr.TotalLines = s.total, s.lines()
	if tr.Truncated = tr.Truncated || len(s.buf) < s.total; !tr.Truncated {
		if text == "" {
			text = "(no output)"
		}
		return Result{Content: []provider.Block{provider.Text(text)}}
	}
	text = strings.TrimSuffix(text, "\n") + "\n\n" + s.notice(&tr)
	return Result{Content: []provider.Block{provider.Text(text)},
		Details: BashDetails{Truncation: &tr, FullOutputPath: s.spillPath}}
}

func (s *outputSink) notice(tr *Truncation) string {
	where := "Full output: " + s.spillPath
	if s.spillPath == "" {
		where = "The full output could not be saved"
		if s.spillErr != nil {
			where += ": " + s.spillErr.Error()
		}
	}
	last := tr.TotalLines
	first := last - tr.OutputLines + 1
	switch {
	case tr.LastLinePartial:
		return fmt.Sprintf("[Last %s of line %d shown (the line is longer). %s]", FormatSize(tr.OutputBytes), last, where)
	case tr.TruncatedBy == "bytes":
		return fmt.Sprintf("[Lines %d-%d of %d shown (%s limit). %s]", first, last, last, FormatSize(DefaultMaxBytes), where)
	}
	return fmt.Sprintf("[Lines %d-%d of %d shown. %s]", first, last, last, where)
}
