package proc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

const (
	// UpdateInterval paces partial output: often enough to feel live, rarely enough for a UI.
	UpdateInterval = 100 * time.Millisecond
	// drainAfterExit is how long output is still read once the shell has exited. A background
	// process may keep the pipe open for ever; waiting for EOF is what makes a caller hang.
	drainAfterExit = 250 * time.Millisecond
)

// ShellSpec says which command RunShell runs, where, and how much of its output it holds.
type ShellSpec struct {
	Shell string // runs `Shell ShellArgs... -c Command`; empty means DefaultShell("")
	// ShellArgs come before -c (PowerShell's -NoProfile -NonInteractive, say).
	ShellArgs []string
	Command   string
	Dir       string        // the working directory; empty means this process's
	Env       []string      // as exec.Cmd.Env: nil means this process's environment
	Timeout   time.Duration // zero means no limit beyond ctx
	// Spill is where the full output goes once it passes MaxBytes or MaxLines: a file of its
	// own there, holding the output up to SpillHead bytes (zero means MaxSpillBytes) and past
	// that its tail held in memory, after a line saying how many bytes were left out. Nil
	// keeps no file: Output.SpillErr says so.
	Spill     *SpillDir
	SpillHead int
	// MaxBytes and MaxLines are the limits of what the caller shows. Memory keeps at most
	// 4*MaxBytes of the output's tail.
	MaxBytes, MaxLines int
	// OnUpdate, when set, gets the output so far while the command runs: only when something
	// new arrived, and at most every UpdateInterval. It runs on RunShell's goroutine.
	OnUpdate func(Output)
	Confine  Confiner // when set, rewrites the command before it starts
}

// Output is what a shell command printed, stdout and stderr merged, and how it ended.
type Output struct {
	// Tail is the end of the output as held in memory, all of it when len(Tail) equals
	// TotalBytes. Raw bytes: it may start inside a line or a character, and binary output
	// is not valid UTF-8.
	Tail       string
	TotalBytes int
	TotalLines int // a final newline ends a line; it does not start one
	// FullOutputPath names the file holding the output once it passed MaxBytes or MaxLines
	// (see ShellSpec.Spill); SpillErr says why that file could not be made or written.
	FullOutputPath string
	SpillErr       error
	ExitCode       *int   // nil while running and when a signal ended the shell
	Signal         string // the signal that ended the shell ("killed"), "" when it exited
	TimedOut       bool   // the group was killed because Timeout passed
	Aborted        bool   // the group was killed because ctx ended
}

// RunShell runs spec.Command with `Shell -c` in its own process group, stdin from /dev/null.
// It returns once the shell has exited, not once every background child has closed the
// output; on timeout or when ctx ends it kills the whole group. The error is for a command
// that could not be run at all: a failing or killed command is reported in Output.
func RunShell(ctx context.Context, spec ShellSpec) (Output, error) {
	if spec.MaxBytes <= 0 || spec.MaxLines <= 0 {
		return Output{}, fmt.Errorf("running %q: MaxBytes and MaxLines must be positive, got %d and %d",
			spec.Command, spec.MaxBytes, spec.MaxLines)
	}
	spec.Shell = DefaultShell(spec.Shell)
	runCtx, cancel := withTimeout(ctx, spec.Timeout)
	defer cancel()
	sink := &tailSink{maxBytes: spec.MaxBytes, maxLines: spec.MaxLines, spillDir: spec.Spill,
		spillHead: cmp.Or(spec.SpillHead, MaxSpillBytes)}
	state, waitErr, err := runPiped(runCtx, spec, sink)
	if err != nil {
		sink.closeSpill()
		return Output{}, err
	}
	sink.finishSpill()
	out := sink.output()
	var exit *exec.ExitError
	switch {
	case runCtx.Err() != nil && waitErr != nil:
		out.Aborted = ctx.Err() != nil
		out.TimedOut = !out.Aborted
	case waitErr != nil && !errors.As(waitErr, &exit):
		return Output{}, fmt.Errorf("running %q: %w", spec.Command, waitErr)
	}
	if state == nil { // stopped before it started
		return out, nil
	}
	if out.Signal = signalName(state); out.Signal == "" {
		code := state.ExitCode()
		out.ExitCode = &code
	}
	return out, nil
}

// runPiped runs the shell with stdout and stderr on one pipe that sink reads, and returns
// how the shell ended. A ctx that ended before the start is reported as waitErr.
func runPiped(ctx context.Context, spec ShellSpec, sink *tailSink) (state *os.ProcessState, waitErr, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("creating the output pipe: %w", err)
	}
	defer pr.Close()
	cmd := Command(ctx, spec.Shell, append(append([]string(nil), spec.ShellArgs...), "-c", spec.Command)...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe: stdout and stderr interleave as written
	if err = confine(cmd, spec.Confine); err == nil {
		err = cmd.Start()
	}
	pw.Close()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err(), nil
		}
		return nil, nil, fmt.Errorf("starting %s: %w", spec.Shell, err)
	}
	copied := make(chan struct{})
	go func() { io.Copy(sink, pr); close(copied) }()
	waitErr = waitReporting(cmd, sink, spec.OnUpdate)
	if pr.SetReadDeadline(time.Now().Add(drainAfterExit)) != nil {
		pr.Close() // not pollable: stop reading now rather than wait for every descendant
	}
	<-copied
	return cmd.ProcessState, waitErr, nil
}

// waitReporting waits for cmd to exit, meanwhile passing the output so far to onUpdate.
func waitReporting(cmd *exec.Cmd, sink *tailSink, onUpdate func(Output)) error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if onUpdate == nil {
		return <-exited
	}
	tick := time.NewTicker(UpdateInterval)
	defer tick.Stop()
	var lastUpdate time.Time
	for {
		select {
		case err := <-exited:
			return err
		case now := <-tick.C:
			// A late tick followed by a punctual one would come early: keep the full interval.
			if now.Sub(lastUpdate) >= UpdateInterval && sink.takeChanged() {
				lastUpdate = time.Now()
				onUpdate(sink.output())
			}
		}
	}
}
