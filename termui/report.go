package termui

// report.go is /import, /debug and /changelog: a session from elsewhere, what a bug report
// needs, what changed in this version.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pi/internal/changelog"
	"pi/tui"
)

func (c *Controller) importSession(path string) {
	path = strings.TrimSpace(path)
	if path == "" {
		c.ui.Notify(tui.LevelError, "/import takes a session file: /import ~/.claude/projects/…/<id>.jsonl")
		return
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	sw, skipped, err := c.sess.Import(c.ctx, path)
	if c.switched("imported "+filepath.Base(path)+" as session", sw, err) && skipped > 0 {
		c.ui.Notify(tui.LevelWarning, fmt.Sprintf("%d lines of %s could not be read and were left out", skipped, path))
	}
}

// debug writes the screen as drawn and the session's report to a new file beside this
// machine's pi.toml, readable by the user alone, and says that it holds the conversation.
func (c *Controller) debug(string) {
	report, err := c.sess.DebugReport(c.ctx)
	if err != nil {
		c.ui.Notify(tui.LevelError, "/debug: "+err.Error())
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# pi /debug, %s\n\n## The screen\n\n", time.Now().Format(time.RFC3339))
	b.WriteString(strings.Join(c.ui.ScreenLines(), "\n"))
	b.WriteString("\n\n" + report + "\n")
	dir := filepath.Dir(c.sess.Notes(c.ctx).SettingsFile)
	path := filepath.Join(dir, "pi-debug-"+time.Now().Format("20060102-150405")+".txt")
	err = os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.WriteFile(path, []byte(b.String()), 0o600)
	}
	if err != nil {
		c.ui.Notify(tui.LevelError, "/debug: "+err.Error())
		return
	}
	c.ui.Notify(tui.LevelInfo, "wrote "+path+": it holds the whole conversation (keys are redacted), so read it before you share it")
}

func (c *Controller) changelog(string) { c.ui.Notify(tui.LevelInfo, changelog.Text()) }
