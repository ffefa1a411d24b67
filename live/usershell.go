package live

// usershell.go runs the shell commands the user types (pi's !cmd, RPC bash) with the bash
// tool's limits, and adds what they printed to the conversation for the model to see with the
// next prompt. The transcript has one writer at a time: while a run or another transcript
// owner holds its slot, the message waits and that owner adds it when it ends.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"pi/agent"
	"pi/config"
	"pi/internal/proc"
	"pi/provider"
	"pi/session"
	"pi/tools"
)

// userShell runs the user's commands for one session, one at a time.
type userShell struct {
	agent   *agent.Agent
	rec     *recorder
	work    *workRegistry
	cfg     *config.Config
	cwd     string
	spill   *proc.SpillDir // where output past the limits is kept
	confine proc.Confiner  // the sandbox, if any
	scripts *scripts       // their user_bash handlers may answer for a command or refuse it

	mu      sync.Mutex // held while pending is flushed, so no message waits unseen
	pending []provider.Message
}

// run runs command in the project and records a bashExecution message that the next prompt's
// context shows the model, unless excludeFromContext (!!cmd). onUpdate, when set, gets the
// output so far while the command runs. Abort stops it.
func (u *userShell) run(ctx context.Context, command string, excludeFromContext bool, onUpdate func(session.BashResult)) (session.BashResult, error) {
	wait, err := u.start(ctx, command, excludeFromContext, onUpdate)
	if err != nil {
		return session.BashResult{}, err
	}
	return wait()
}

// start claims the one shell slot at once, so that of two commands sent back to back the
// first runs and the second is refused, and returns the function that runs the command.
func (u *userShell) start(ctx context.Context, command string, excludeFromContext bool, onUpdate func(session.BashResult)) (func() (session.BashResult, error), error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return nil, errors.New("bash: the command is empty")
	}
	ctx, end, err := u.work.begin(ctx, workBash)
	if err != nil {
		return nil, fmt.Errorf("bash %q: %w", command, err)
	}
	return func() (session.BashResult, error) {
		defer end()
		if res, done, err := u.scripted(ctx, command, excludeFromContext); done {
			return res, err
		}
		spec := proc.ShellSpec{Shell: u.cfg.Bash.Shell, Command: command, Dir: u.cwd, Timeout: u.timeout(),
			Spill: u.spill, MaxBytes: tools.DefaultMaxBytes, MaxLines: tools.DefaultMaxLines, Confine: u.confine}
		if onUpdate != nil {
			spec.OnUpdate = func(o proc.Output) { onUpdate(bashResultOf(o)) }
		}
		out, err := proc.RunShell(ctx, spec)
		if err != nil {
			return session.BashResult{}, fmt.Errorf("bash %q: %w", command, err)
		}
		res := bashResultOf(out)
		res.Output, _ = u.cfg.SecretPolicy().Redact(res.Output)
		u.record(session.BashMessage(command, res, excludeFromContext, time.Now()))
		return res, nil
	}, nil
}

// scripted runs the scripts' user_bash handlers: done when one supplied the result (recorded
// as the command's) or refused the command.
func (u *userShell) scripted(ctx context.Context, command string, exclude bool) (session.BashResult, bool, error) {
	got := u.scripts.rt.UserBashEvent(ctx, command, exclude)
	if got.Blocked != "" {
		return session.BashResult{}, true, fmt.Errorf("bash %q: %s", command, got.Blocked)
	}
	res := session.BashResult{Output: got.Output, ExitCode: got.ExitCode, Cancelled: got.Cancelled,
		Truncated: got.Truncated, FullOutputPath: got.FullOutputPath}
	if got.Handled {
		u.record(session.BashMessage(command, res, exclude, time.Now()))
	}
	return res, got.Handled, nil
}

// bashResultOf words the runner's output as pi's BashResult, with the bash tool's limits.
func bashResultOf(o proc.Output) session.BashResult {
	text, tr := tools.ShellTail(o)
	r := session.BashResult{Output: text, ExitCode: o.ExitCode, Cancelled: o.TimedOut || o.Aborted, Truncated: tr.Truncated}
	if tr.Truncated {
		r.FullOutputPath = o.FullOutputPath
	}
	return r
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
