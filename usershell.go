package main

// usershell.go runs the shell commands the user types (pi's !cmd, RPC bash) with the bash
// tool's limits, and adds what they printed to the conversation for the model to see with the
// next prompt. The transcript has one writer at a time: while a run or another transcript
// owner holds its slot, the message waits and that owner adds it when it ends.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"pi/agent"
	"pi/config"
	"pi/provider"
	"pi/session"
	"pi/tools"
)

// userShell runs the user's commands for one harness, one at a time.
type userShell struct {
	agent *agent.Agent
	rec   *recorder
	work  *workRegistry
	cfg   *config.Config
	cwd   string

	mu      sync.Mutex // held while pending is flushed, so no message waits unseen
	pending []provider.Message
}

// bashResult is pi's BashResult: what a shell command the user ran printed and how it ended.
type bashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode"` // nil when the command was killed
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// run runs command in the project and records a bashExecution message that the next prompt's
// context shows the model, unless excludeFromContext (!!cmd). Abort stops it.
func (u *userShell) run(ctx context.Context, command string, excludeFromContext bool) (bashResult, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return bashResult{}, errors.New("bash: the command is empty")
	}
	ctx, end, err := u.work.begin(ctx, workBash)
	if err != nil {
		return bashResult{}, fmt.Errorf("bash %q: %w", command, err)
	}
	defer end()
	res, err := execShell(ctx, u.shellPath(), u.cwd, command, u.timeout())
	if err != nil {
		return res, fmt.Errorf("bash %q: %w", command, err)
	}
	u.record(bashMessage(command, res, excludeFromContext, time.Now()))
	return res, nil
}

func (u *userShell) shellPath() string {
	if u.cfg.Bash.Shell != "" {
		return u.cfg.Bash.Shell
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "sh"
}

func (u *userShell) timeout() time.Duration {
	if u.cfg.Bash.TimeoutSeconds > 0 {
		return time.Duration(u.cfg.Bash.TimeoutSeconds) * time.Second
	}
	return tools.DefaultBashTimeout
}

// record adds m to the transcript and the session now when nothing owns the transcript, and
// otherwise leaves it for the owner to add when it ends (release).
func (u *userShell) record(m provider.Message) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.pending = append(u.pending, m)
	u.work.whileIdle(u.flushLocked)
}

// release adds the waiting messages, then ends the work that owned the transcript.
func (u *userShell) release(end func()) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.flushLocked()
	end()
}

// flush adds the waiting messages; the caller owns the transcript.
func (u *userShell) flush() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.flushLocked()
}

// drop forgets waiting messages (the session they were for is being replaced).
func (u *userShell) drop() {
	u.mu.Lock()
	u.pending = nil
	u.mu.Unlock()
}

func (u *userShell) flushLocked() {
	if len(u.pending) == 0 {
		return
	}
	u.agent.ReplaceMessages(append(u.agent.MessagesView(), u.pending...))
	for _, m := range u.pending {
		u.rec.append(m)
	}
	u.pending = nil
}

// execShell runs command in its own process group so that cancelling kills its children too.
func execShell(ctx context.Context, shell, dir, command string, timeout time.Duration) (bashResult, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &bashCapture{}
	defer out.close()
	cmd := exec.CommandContext(runCtx, shell, "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	ownProcessGroup(cmd)
	// A background child may hold the output pipe open for ever; stop reading soon after the
	// shell itself has exited.
	cmd.WaitDelay = 250 * time.Millisecond
	err := cmd.Run()
	res := out.result()
	switch {
	case runCtx.Err() != nil:
		res.Cancelled = true
	case cmd.ProcessState == nil:
		return res, err // it never started
	default:
		code := cmd.ProcessState.ExitCode()
		res.ExitCode = &code
	}
	return res, nil
}

// bashCapture keeps the tail of a command's output in memory and, once the output passes the
// limits, all of it in a temporary file the result points to.
type bashCapture struct {
	mu       sync.Mutex
	buf      []byte
	total    int
	spill    *os.File
	spillErr error
}

func (c *bashCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += len(p)
	if c.spill == nil && c.spillErr == nil && c.total > tools.DefaultMaxBytes {
		c.openSpill()
	}
	if c.spill != nil {
		c.spill.Write(p) // a failing spill file costs only the full copy, never the command
	}
	c.buf = append(c.buf, p...)
	if keep := 2 * tools.DefaultMaxBytes; len(c.buf) > keep {
		c.buf = append(c.buf[:0], c.buf[len(c.buf)-keep:]...)
	}
	return len(p), nil
}

// openSpill starts the full-output file with what is held so far. c.mu must be held.
func (c *bashCapture) openSpill() {
	if c.spill, c.spillErr = os.CreateTemp("", "pi-bash-*.log"); c.spillErr == nil {
		c.spill.Write(c.buf)
	}
}

func (c *bashCapture) result() bashResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, tr := tools.TruncateTail(string(c.buf), tools.DefaultMaxLines, tools.DefaultMaxBytes)
	res := bashResult{Output: strings.ToValidUTF8(text, "\uFFFD"), Truncated: tr.Truncated || c.total > len(c.buf)}
	if res.Truncated && c.spill == nil && c.spillErr == nil {
		c.openSpill() // cut by lines only: everything is still in buf
	}
	if res.Truncated && c.spill != nil {
		res.FullOutputPath = c.spill.Name()
	}
	return res
}

func (c *bashCapture) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spill != nil {
		c.spill.Close()
	}
}

// bashMessage is pi's bashExecution message; session.ToLLM words it for the model.
func bashMessage(command string, r bashResult, exclude bool, now time.Time) provider.Message {
	extra := map[string]json.RawMessage{"command": jsonValue(command), "output": jsonValue(r.Output),
		"exitCode": jsonValue(r.ExitCode), "cancelled": jsonValue(r.Cancelled), "truncated": jsonValue(r.Truncated)}
	if r.FullOutputPath != "" {
		extra["fullOutputPath"] = jsonValue(r.FullOutputPath)
	}
	if exclude {
		extra["excludeFromContext"] = jsonValue(true)
	}
	return provider.Message{Role: session.RoleBashExecution, Timestamp: now.UnixMilli(), Extra: extra}
}

// jsonValue encodes strings, bools and int pointers, which always encode.
func jsonValue(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
