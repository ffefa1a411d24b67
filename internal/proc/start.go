package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
)

// StartSpec says which program Start runs (no shell: Name is looked up in PATH), where and
// with what environment.
type StartSpec struct {
	Name string
	Args []string
	Dir  string   // empty means this process's
	Env  []string // as exec.Cmd.Env: nil means this process's environment
	// Confine, when set, rewrites the command before it starts (the sandbox).
	Confine Confiner
}

// Running is a process Start started, with its three streams as pipes. The caller reads
// Stdout and Stderr to their end before calling Wait, as with exec.Cmd's pipes.
type Running struct {
	Pid    int
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Stderr io.ReadCloser
	cmd    *exec.Cmd
}

// Exit is how a process ended.
type Exit struct {
	Code   int    // the exit code; -1 when a signal ended it
	Signal string // the signal's name, or ""
}

// Start runs spec in a process group of its own with piped stdin, stdout and stderr, and
// returns at once. When ctx ends the whole group gets SIGKILL.
func Start(ctx context.Context, spec StartSpec) (*Running, error) {
	cmd := Command(ctx, spec.Name, spec.Args...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	r := &Running{cmd: cmd}
	err := confine(cmd, spec.Confine)
	if err == nil {
		r.Stdin, err = cmd.StdinPipe()
	}
	if err == nil {
		r.Stdout, err = cmd.StdoutPipe()
	}
	if err == nil {
		r.Stderr, err = cmd.StderrPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	r.Pid = cmd.Process.Pid
	return r, nil
}

// Signal sends sig to the process's whole group (to the process alone where there are no
// groups). A group that is gone already is os.ErrProcessDone.
func (r *Running) Signal(sig syscall.Signal) error {
	return signalGroup(r.cmd.Process, sig)
}

// Wait waits for the process to exit, once Stdout and Stderr have been read to their end (or
// a second after it exited, when a grandchild holds them open).
func (r *Running) Wait() (Exit, error) {
	err := r.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		return Exit{Code: r.cmd.ProcessState.ExitCode(), Signal: signalName(r.cmd.ProcessState)}, nil
	case errors.As(err, &exit):
		return Exit{Code: exit.ExitCode(), Signal: signalName(exit.ProcessState)}, nil
	}
	return Exit{Code: -1}, fmt.Errorf("waiting for process %d: %w", r.Pid, err)
}
