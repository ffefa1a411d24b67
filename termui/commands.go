package termui

import (
	"errors"
	"fmt"
	"strings"

	"pi/provider"
	"pi/session"
	"pi/tui"
)

// commands.go is the commands that are one session call with a notice around it, /trust,
// and the !cmd box.

func (c *Controller) compact(instructions string) {
	release := c.sess.Hold()
	c.ui.SetStatus("Compacting…")
	before, after, err := c.sess.Compact(c.ctx, instructions)
	c.ui.SetStatus("")
	release()
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.ui.Notify(tui.LevelInfo, fmt.Sprintf("compacted: %d → %d tokens", before, after))
	c.sess.Refresh(c.ctx)
}

func (c *Controller) name(args string) {
	if err := c.sess.Rename(c.ctx, args); err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.sess.Refresh(c.ctx)
}

func (c *Controller) sessionInfo(string) {
	n, err := c.sess.Counts(c.ctx)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	s := n.Branch
	text := fmt.Sprintf("session %s\nfile %s\n%s: %s", s.SessionID, s.SessionFile, n.BranchIs, countsLine(s))
	switch {
	case n.File == nil:
	case sameCounts(*n.File, s):
		text += "\nthe whole file (every branch, as /export counts it) is this branch"
	default:
		text += "\nthe whole file, every branch (as /export counts it): " + countsLine(*n.File)
	}
	c.ui.Notify(tui.LevelInfo, text)
}

// countsLine is one count of /session: messages by kind, tokens and cost.
func countsLine(s session.Stats) string {
	return fmt.Sprintf("%d messages (%d user, %d assistant, %d tool calls)\n  tokens: %d in, %d out, %d cache read, "+
		"%d cache write · cost $%.4f", s.TotalMessages, s.UserMessages, s.AssistantMessages, s.ToolCalls,
		s.Tokens.Input, s.Tokens.Output, s.Tokens.CacheRead, s.Tokens.CacheWrite, s.Cost)
}

func sameCounts(a, b session.Stats) bool { return countsLine(a) == countsLine(b) }

// export writes the session as an HTML page, or the session file for a .jsonl name.
func (c *Controller) export(path string) {
	out, err := c.sess.Export(c.ctx, strings.TrimSpace(path))
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.ui.Notify(tui.LevelInfo, "exported to "+out)
}

func (c *Controller) copyLast(string) {
	text, ok, err := c.sess.LastReply(c.ctx)
	switch {
	case err != nil:
		c.ui.Notify(tui.LevelError, err.Error())
		return
	case !ok:
		c.ui.Notify(tui.LevelWarning, "no reply to copy yet")
		return
	}
	if err := c.ui.SetClipboard(text); err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.ui.Notify(tui.LevelInfo, "copied the last reply")
}

func (c *Controller) reload(string) {
	dirs, err := c.sess.Reload(c.ctx)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.LoadCommands()
	c.ui.SetThemeDirs(dirs) // resources_discover ran again
	c.ui.Notify(tui.LevelInfo, "scripts reloaded")
}

// AskTrust asks, on the screen, whether an undecided project's script may run.
func (c *Controller) AskTrust() {
	if _, undecided, err := c.sess.Trust(c.ctx); err != nil || !undecided || c.sess.Notes(c.ctx).Trust != "" {
		return
	}
	yes, err := c.ui.Confirm(c.ctx, "Trust this project?",
		c.sess.Notes(c.ctx).Project+"/.pi/init.lua runs with your permissions. Let it run, now and from now on?")
	if err != nil && !errors.Is(err, tui.ErrCancelled) {
		return
	}
	c.setTrust(yes)
}

// trust is /trust [on|off]: without an argument it asks. Where someone else decides (pi
// serve), it says so instead.
func (c *Controller) trust(args string) {
	if note := c.sess.Notes(c.ctx).Trust; note != "" {
		c.ui.Notify(tui.LevelInfo, note)
		return
	}
	switch strings.TrimSpace(args) {
	case "on", "yes":
		c.setTrust(true)
	case "off", "no":
		c.setTrust(false)
	case "":
		trusted, _, _ := c.sess.Trust(c.ctx)
		i, err := c.ui.Select(c.ctx, fmt.Sprintf("This project's .pi/init.lua (trusted now: %v)", trusted),
			[]string{"Let it run", "Do not let it run"})
		if err == nil {
			c.setTrust(i == 0)
		}
	default:
		c.ui.Notify(tui.LevelError, "/trust takes on or off")
	}
}

func (c *Controller) setTrust(trusted bool) {
	msg, err := c.sess.SetTrust(c.ctx, trusted)
	if err != nil {
		c.ui.Notify(tui.LevelError, err.Error())
		return
	}
	c.LoadCommands()
	c.ui.Notify(tui.LevelInfo, msg)
}

// Bash runs a !cmd line and shows it as a bash box; with keep (a single !) the model sees the
// command and its output with the next prompt, with !! it does not.
func (c *Controller) Bash(cmd string, keep bool) {
	id := fmt.Sprintf("bang-%d", c.bangs.Add(1))
	release := c.sess.Hold() // so that Escape interrupts the command
	defer release()
	c.ui.ToolStart(id, "bash", map[string]any{"command": cmd})
	res, err := c.sess.Bash(c.ctx, cmd, !keep, func(output string) {
		c.ui.ToolUpdate(id, []provider.Block{provider.Text(output)})
	})
	text := res.Output
	failed := err != nil || res.Cancelled || res.ExitCode == nil || *res.ExitCode != 0
	switch {
	case err != nil:
		text = err.Error()
	case res.Cancelled:
		text += "\n(cancelled)"
	case res.ExitCode != nil && *res.ExitCode != 0:
		text += fmt.Sprintf("\n(exit code %d)", *res.ExitCode)
	}
	c.ui.ToolEnd(id, []provider.Block{provider.Text(strings.TrimLeft(text, "\n"))}, nil, failed)
}
