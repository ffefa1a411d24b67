//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTmuxFooterShowsNextRequest: before the first request the footer says the whole prefix
// is still to be evaluated ("next N"); once a reply has filled the server's cache, nothing is.
func TestTmuxFooterShowsNextRequest(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	p := &fdProject{dir: dir, home: filepath.Join(dir, ".pihome"), sessions: filepath.Join(dir, "sessions"),
		script: filepath.Join(dir, "script.json")}
	os.MkdirAll(p.home, 0o755)
	os.WriteFile(p.script, []byte(`[{"content": [{"type": "text", "text": "REPLY-ONE"}]}, {"content": [{"type": "text", "text": "spare"}]}]`), 0o644)
	m := startFDTmux(t, bin, p)
	footer := func() string { // the screen's last line
		lines := strings.Split(strings.TrimRight(m.visible(), "\n "), "\n")
		return lines[len(lines)-1]
	}
	if !fdWaitUntil(10*time.Second, func() bool { return strings.Contains(footer(), "next ") }) {
		t.Fatalf("the footer does not say what the first request costs: %q\n%s", footer(), m.screen())
	}
	m.typeText("hi")
	m.keys("Enter")
	if !m.sees("REPLY-ONE", 10*time.Second) {
		t.Fatalf("no reply; pane:\n%s", m.screen())
	}
	if !fdWaitUntil(10*time.Second, func() bool { return !m.working() && !strings.Contains(footer(), "next ") }) {
		t.Errorf("after the reply the footer still counts tokens to evaluate: %q", footer())
	}
	m.quit()
}
