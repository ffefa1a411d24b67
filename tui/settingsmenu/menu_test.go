package settingsmenu

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/tui"
)

// screen is a terminal that keeps what was drawn.
type screen struct {
	mu   sync.Mutex
	buf  strings.Builder
	seen int
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// waitFor draws frames until text appears after what an earlier wait consumed.
func (s *screen) waitFor(t *testing.T, ui *tui.App, text string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		ui.Flush()
		s.mu.Lock()
		i := strings.Index(s.buf.String()[s.seen:], text)
		if i >= 0 {
			s.seen += i + len(text)
		}
		s.mu.Unlock()
		if i >= 0 {
			return
		}
	}
	t.Fatalf("the screen never showed %q", text)
}

// A row is picked, then a value: it is applied, and saved where it has a place in pi.toml; a
// row without one only applies.
func TestRunAppliesAndSaves(t *testing.T) {
	for _, saved := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "pi.toml")
		scr := &screen{}
		ui := tui.NewApp(scr, 100, 30, tui.Callbacks{}, tui.Options{ManualFrames: true})
		mode, applied := "one-at-a-time", ""
		rows := []Setting{
			{Label: "auto-compaction", Key: "enabled", Table: "compaction", Values: OnOff, Current: func() string { return "on" },
				Apply: func(context.Context, string) error { t.Error("the wrong row was applied"); return nil }},
			{Label: "steering mode", Key: "steering_mode", Values: QueueModes, Current: func() string { return mode },
				Apply: func(_ context.Context, v string) error { applied = v; return nil }},
		}
		if saved {
			rows[1].Saved = AsIs
		}
		changed := make(chan bool, 1)
		go func() { changed <- Run(context.Background(), ui, path, rows) }()
		scr.waitFor(t, ui, "Settings (saved to "+path+")")
		ui.HandleEvent(tcell.NewEventKey(tcell.KeyDown, 0, tcell.ModNone))
		ui.HandleEvent(tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone))
		scr.waitFor(t, ui, "all") // the values' picker, not the rows'
		ui.HandleEvent(tcell.NewEventKey(tcell.KeyDown, 0, tcell.ModNone))
		ui.HandleEvent(tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone))
		select {
		case ok := <-changed:
			if !ok || applied != "all" {
				t.Fatalf("saved %v: applied %q", saved, applied)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the menu did not finish")
		}
		data, err := os.ReadFile(path)
		switch {
		case saved && (err != nil || !strings.Contains(string(data), `steering_mode = "all"`)):
			t.Fatalf("pi.toml: %q, %v", data, err)
		case !saved && err == nil:
			t.Fatalf("a row without a place in pi.toml was saved: %q", data)
		}
	}
}
