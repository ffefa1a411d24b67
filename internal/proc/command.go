package proc

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// waitDelay bounds how long Wait still copies a child's pipes once it has exited or been
// killed: a grandchild that inherited them may hold them open for ever.
const waitDelay = time.Second

// Command is exec.CommandContext for a child that leads a process group of its own: when ctx
// ends, the whole group gets SIGKILL (where there are no groups, the child alone is killed).
// Wait stops copying the child's pipes a second after it is gone. Callers must leave the
// returned Cmd's SysProcAttr and Cancel as they are.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	return cmd
}

// Confiner rewrites a command that has not started yet so that it starts confined, in a
// sandbox say: it may change the Cmd's Path and Args, nothing else. An error stops the start.
type Confiner func(*exec.Cmd) error

func confine(cmd *exec.Cmd, c Confiner) error {
	if c == nil {
		return nil
	}
	if err := c(cmd); err != nil {
		return fmt.Errorf("confining %s: %w", cmd.Path, err)
	}
	return nil
}

// DefaultShell is the shell to run commands with: configured when set, else bash from PATH,
// else sh.
func DefaultShell(configured string) string {
	if configured != "" {
		return configured
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

// withTimeout bounds ctx by timeout, or leaves it as it is when timeout is not positive.
func withTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
	}
	return context.WithCancel(ctx)
}
