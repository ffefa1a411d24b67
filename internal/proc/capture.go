package proc

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// DefaultCaptureBytes is what Capture keeps of each stream when the spec names no cap: a
// runaway process must not fill memory.
const DefaultCaptureBytes = 8 << 20

// CaptureSpec says which command Capture runs, where, and with what input.
type CaptureSpec struct {
	Command string        // runs `sh -c Command`
	Dir     string        // the working directory; empty means this process's
	Env     []string      // as exec.Cmd.Env: nil means this process's environment
	Stdin   string        // empty means /dev/null
	Timeout time.Duration // zero means no limit beyond ctx
	// MaxBytes is how much of each stream is kept (the start; the rest is read and dropped);
	// zero means DefaultCaptureBytes.
	MaxBytes int
	// Combined sends stderr into Stdout, interleaved as written, as CombinedOutput does.
	Combined bool
	Confine  Confiner // when set, rewrites the command before it starts
}

// Captured is what a command printed and how it ended.
type Captured struct {
	Stdout, Stderr string
	Code           int  // the exit code; -1 when a signal ended the command
	Killed         bool // the group was killed because Timeout passed or ctx ended
}

// Capture runs spec.Command with `sh -c` in its own process group and collects its output.
// On timeout or when ctx ends it kills the whole group. A command that exits while a
// background child still holds its output open counts as exited, once that output is given
// up a second later. The error is for a command that could not be run at all: a failing or
// killed command is reported in Captured.
func Capture(ctx context.Context, spec CaptureSpec) (Captured, error) {
	runCtx, cancel := withTimeout(ctx, spec.Timeout)
	defer cancel()
	cmd := Command(runCtx, "sh", "-c", spec.Command)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	if spec.Stdin != "" {
		cmd.Stdin = strings.NewReader(spec.Stdin)
	}
	limit := cmp.Or(spec.MaxBytes, DefaultCaptureBytes)
	stdout, stderr := &cappedBuffer{max: limit}, &cappedBuffer{max: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if spec.Combined {
		cmd.Stderr = stdout // the same writer: exec gives both streams one pipe
	}
	err := confine(cmd, spec.Confine)
	if err == nil {
		err = cmd.Run()
	}
	res := Captured{Stdout: stdout.String(), Stderr: stderr.String(), Killed: err != nil && runCtx.Err() != nil}
	var exit *exec.ExitError
	switch {
	case err == nil, !res.Killed && errors.Is(err, exec.ErrWaitDelay):
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case res.Killed:
		res.Code = -1 // stopped before it started
	default:
		return res, fmt.Errorf("running sh -c %q: %w", spec.Command, err)
	}
	return res, nil
}

// cappedBuffer keeps the first max bytes written to it and drops the rest, reporting them
// written so that the child is not stopped by a failing pipe. It holds its bytes.Buffer in a
// field: an embedded one would lend it ReadFrom, which io.Copy prefers to Write, past the cap.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) String() string { return b.buf.String() }
