//go:build unix

package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pi/internal/testwait"
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
		}, 10 * time.Second},
		{"Capture", func() (string, error) { // gives the pipe up after waitDelay
			got, err := Capture(context.Background(), CaptureSpec{Command: command})
			if err == nil && (got.Code != 0 || got.Killed) {
				t.Errorf("got %+v, want a plain exit", got)
			}
			return got.Stdout, err
		}, waitDelay + 10*time.Second},
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

// grandchildTimeout is long enough for a loaded machine to start a command's first step (a
// grandchild, a line of output) before the timeout or abort ends it.
const grandchildTimeout = 2 * time.Second

// Cancelling, by timeout or by ctx, kills the whole group: a grandchild that ignores SIGTERM
// goes too. The grandchild writes its pid once its trap is set; only the cancel cases cancel.
func TestCancelKillsGrandchildren(t *testing.T) {
	const script = `sh -c 'trap "" TERM; echo $$ > %s; sleep 100' & wait`
	tests := []struct {
		name    string
		cancels bool
		run     func(ctx context.Context, command string) error
	}{
		{"RunShell timeout", false, func(ctx context.Context, command string) error {
			spec := specOf(command)
			spec.Timeout = grandchildTimeout
			out, err := RunShell(ctx, spec)
			if err == nil && !out.TimedOut {
				t.Errorf("got %+v, want a timeout", out)
			}
			return err
		}},
		{"RunShell abort", true, func(ctx context.Context, command string) error {
			out, err := RunShell(ctx, specOf(command))
			if err == nil && !out.Aborted {
				t.Errorf("got %+v, want an abort", out)
			}
			return err
		}},
		{"Capture timeout", false, func(ctx context.Context, command string) error {
			got, err := Capture(ctx, CaptureSpec{Command: command, Timeout: grandchildTimeout})
			if err == nil && !got.Killed {
				t.Errorf("got %+v, want killed", got)
			}
			return err
		}},
		{"Command cancel", true, func(ctx context.Context, command string) error {
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
			hasPid := func() bool {
				data, err := os.ReadFile(path)
				return err == nil && strings.HasSuffix(string(data), "\n")
			}
			if tc.cancels {
				go func() { testwait.Within(testwait.Deadline, hasPid); cancel() }()
			}
			start := time.Now()
			if err := tc.run(ctx, strings.Replace(script, "%s", path, 1)); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 10*time.Second+grandchildTimeout { // the grandchild sleeps 100 s
				t.Fatalf("took %v", d)
			}
			if !hasPid() {
				t.Fatalf("the run ended before the grandchild had started (its timeout is %v)", grandchildTimeout)
			}
			assertGone(t, waitForPid(t, path))
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
