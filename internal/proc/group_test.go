//go:build unix

package proc

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A background child that keeps the output open must not keep the caller waiting: each
// runner returns soon after the shell itself exits.
func TestBackgroundChildDoesNotHang(t *testing.T) {
	const command = "sleep 100 & echo $!"
	tests := []struct {
		name  string
		run   func() (string, error)
		limit time.Duration
	}{
		{"RunShell", func() (string, error) {
			out, err := RunShell(context.Background(), specOf(command))
			return out.Tail, err
		}, time.Second},
		{"Capture", func() (string, error) { // gives the pipe up after waitDelay
			got, err := Capture(context.Background(), CaptureSpec{Command: command})
			if err == nil && (got.Code != 0 || got.Killed) {
				t.Errorf("got %+v, want a plain exit", got)
			}
			return got.Stdout, err
		}, waitDelay + 700*time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			printed, err := tc.run()
			elapsed := time.Since(start)
			pid, convErr := strconv.Atoi(strings.TrimSpace(printed))
			if convErr == nil {
				defer syscall.Kill(pid, syscall.SIGKILL)
			}
			if err != nil || convErr != nil {
				t.Fatalf("output %q: %v %v", printed, err, convErr)
			}
			if elapsed > tc.limit {
				t.Fatalf("took %v, want under %v", elapsed, tc.limit)
			}
		})
	}
}

// Cancelling, by timeout or by ctx, kills the whole group: a grandchild that ignores SIGTERM
// goes too.
func TestCancelKillsGrandchildren(t *testing.T) {
	const script = `sh -c 'trap "" TERM; sleep 100' & echo $! > %s; wait`
	tests := []struct {
		name string
		run  func(ctx context.Context, command string) error
	}{
		{"RunShell timeout", func(ctx context.Context, command string) error {
			spec := specOf(command)
			spec.Timeout = 300 * time.Millisecond
			out, err := RunShell(ctx, spec)
			if err == nil && !out.TimedOut {
				t.Errorf("got %+v, want a timeout", out)
			}
			return err
		}},
		{"RunShell abort", func(ctx context.Context, command string) error {
			out, err := RunShell(ctx, specOf(command))
			if err == nil && !out.Aborted {
				t.Errorf("got %+v, want an abort", out)
			}
			return err
		}},
		{"Capture timeout", func(ctx context.Context, command string) error {
			got, err := Capture(ctx, CaptureSpec{Command: command, Timeout: 300 * time.Millisecond})
			if err == nil && !got.Killed {
				t.Errorf("got %+v, want killed", got)
			}
			return err
		}},
		{"Command cancel", func(ctx context.Context, command string) error {
			if err := Command(ctx, "sh", "-c", command).Run(); !errors.As(err, new(*exec.ExitError)) {
				t.Errorf("got %v, want the shell killed", err)
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := pidFile(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pids := make(chan int, 1)
			go func() {
				pid := waitForPid(t, path)
				pids <- pid
				time.Sleep(400 * time.Millisecond) // the timeout cases end first
				cancel()
			}()
			start := time.Now()
			if err := tc.run(ctx, strings.Replace(script, "%s", path, 1)); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("took %v", d)
			}
			assertGone(t, <-pids)
		})
	}
}

func TestDefaultShell(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		bash = "sh"
	}
	tests := []struct{ configured, want string }{
		{"/bin/zsh", "/bin/zsh"},
		{"", bash},
	}
	for _, tc := range tests {
		if got := DefaultShell(tc.configured); got != tc.want {
			t.Errorf("DefaultShell(%q) = %q, want %q", tc.configured, got, tc.want)
		}
	}
}
