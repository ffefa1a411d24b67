package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"pi/internal/cputime"
	"pi/internal/testwait"
)

// gatedVT is a terminal whose writes wait while its gate is closed, as a pty does when
// nobody reads it (a recorder that is itself waiting to write our input).
type gatedVT struct {
	mu      sync.Mutex
	vt      *vt
	open    chan struct{} // closed while writes may go through
	writes  int
	waiting int // writes held at the gate
}

func newGatedVT(w, h int) *gatedVT {
	g := &gatedVT{vt: newVT(w, h), open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gatedVT) Write(p []byte) (int, error) {
	g.mu.Lock()
	open := g.open
	g.waiting++
	g.mu.Unlock()
	<-open
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waiting--
	g.writes++
	return g.vt.Write(p)
}

func (g *gatedVT) writesWaiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

func (g *gatedVT) writesSoFar() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writes
}

func (g *gatedVT) block() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

func (g *gatedVT) unblock() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// screen returns the screen rows, trailing blank rows dropped.
func (g *gatedVT) screen() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Join(screenRows(g.vt), "\n")
}

// within fails unless f returns within d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}

// waitScreen polls until the screen contains want, and reports how long that took.
func waitScreen(t *testing.T, g *gatedVT, want string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for !strings.Contains(g.screen(), want) {
		if time.Since(start) > limit {
			t.Fatalf("the screen never showed %q:\n%s", want, g.screen())
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(start)
}

// While the terminal takes no output, keys and agent events are still taken at once (the
// frame being written holds no lock they need), and once it reads again the screen catches
// up with everything that happened meanwhile. (Before, the frame's write held the App's lock:
// the input goroutine stopped reading the terminal, and a pty recorder waiting to hand us
// the user's keys stopped reading our output: both waited for ever.)
func TestBlockedTerminalHoldsNothingUp(t *testing.T) {
	term := newGatedVT(80, 24)
	app := NewApp(term, 80, 24, Callbacks{}, Options{Cwd: t.TempDir()})
	t.Cleanup(func() { term.unblock(); app.Close() })
	app.SetFooter(testFooter)
	app.Flush()
	term.block()
	app.StartAssistant()
	app.UpdateAssistant(assistant("written while blocked"))
	testwait.Until(t, "a frame waiting in Write", func() bool { return term.writesWaiting() > 0 })
	// Held up, they would wait for ever; 5 s only keeps a loaded machine from failing them.
	within(t, 5*time.Second, "a key press", func() { typeText(app, "typed meanwhile") })
	within(t, 5*time.Second, "an agent event", func() {
		app.UpdateAssistant(assistant("written while blocked, and more"))
		app.EndAssistant(assistant("written while blocked, and more. THE END"))
	})
	within(t, 5*time.Second, "a resize", func() { app.HandleEvent(tcell.NewEventResize(80, 24)) })
	term.unblock()
	if d := waitScreen(t, term, "THE END", testwait.Deadline); d > 100*time.Millisecond {
		t.Logf("the end showed %s after the terminal read again", d)
	}
	waitScreen(t, term, "typed meanwhile", testwait.Deadline)
}

// lockedVT is a terminal model safe to read while the App writes to it.
type lockedVT struct {
	mu sync.Mutex
	vt *vt
}

func (l *lockedVT) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.vt.Write(p)
}

// The stall, with the real frame timer: after a long transcript a reply far taller than the
// screen arrives as fast as it can, in big chunks or small ones; its end is on screen, above
// the editor and footer, within 300 ms of CPU time after its last byte (about 100 ms on a quiet
// machine; CPU time stretches too when two cores are shared with other builds, and 124-134 ms
// were seen then). A stall that never draws it fails at testwait's deadline.
func TestReplyEndShowsPromptly(t *testing.T) {
	cases := []struct {
		name  string
		chunk int
	}{
		{"4000-char chunks", 4000},
		{"16-char chunks", 16},
	}
	limit := 300 * time.Millisecond
	if raceEnabled {
		limit *= 5 // the race detector slows everything down
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A loaded machine can delay one attempt past the limit; the stall this guards
			// against misses it every time, so the best of three attempts must meet it.
			var failure string
			for attempt := 0; attempt < 3; attempt++ {
				if failure = replyEndWithin(t, c.chunk, limit); failure == "" {
					return
				}
				t.Logf("attempt %d: %s", attempt+1, failure)
			}
			t.Fatal(failure)
		})
	}
}

// replyEndWithin streams a tall reply after a long transcript and says what was wrong
// if its end was not on screen, above the editor and footer, within limit of its last byte.
func replyEndWithin(t *testing.T, chunk int, limit time.Duration) string {
	term := &lockedVT{vt: newVT(120, 40)}
	app := NewApp(term, 120, 40, Callbacks{}, Options{Cwd: t.TempDir()})
	defer app.Close()
	app.SetFooter(testFooter)
	app.AddUserMessage("first")
	app.StartAssistant()
	app.EndAssistant(assistant(numberedReply("first", 5000)))
	app.AddUserMessage("second")
	app.SetWorking(true)
	text := numberedReply("second", 4800)
	if chunk < 1000 {
		text = numberedReply("second", 480) // a 16-char stream of 4,800 lines takes too long under -race
	}
	app.StartAssistant()
	for i := chunk; i < len(text); i += chunk {
		app.UpdateAssistant(assistant(text[:i]))
	}
	app.UpdateAssistant(assistant(text))
	last, cpu := time.Now(), cputime.Used()
	app.EndAssistant(assistant(text))
	app.SetWorking(false)
	for {
		term.mu.Lock()
		rows := screenRows(term.vt)
		term.mu.Unlock()
		if len(rows) > 7 && rows[len(rows)-7] == "second END OF REPLY" {
			break
		}
		if time.Since(last) > testwait.Deadline {
			return fmt.Sprintf("%s after the reply's last byte the screen shows\n%s", testwait.Deadline, strings.Join(rows, "\n"))
		}
		time.Sleep(10 * time.Millisecond) // few looks, so that they cost little of the CPU time measured
	}
	// The work it took is this process's CPU time: a loaded machine stretches the wall time.
	if used := cputime.Used() - cpu; used > limit || (cpu == 0 && time.Since(last) > limit) {
		return fmt.Sprintf("the end showed after %v of CPU time (%v of wall time), want at most %v",
			used, time.Since(last).Round(time.Millisecond), limit)
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	checkBottom(t, "at the end", term.vt, "", "second END OF REPLY")
	return ""
}

// While the agent works and nothing else happens, the spinner still moves ten times a second.
func TestSpinnerMovesWhileWaiting(t *testing.T) {
	term := &lockedVT{vt: newVT(60, 10)}
	app := NewApp(term, 60, 10, Callbacks{}, Options{Cwd: t.TempDir()})
	t.Cleanup(func() { app.Close() })
	app.SetWorking(true)
	began, start := time.Now(), app.Stats().Frames
	// Five frames at ten a second: a loaded machine may make them late, never early.
	testwait.Until(t, "five spinner frames", func() bool { return app.Stats().Frames-start >= 5 })
	if d := time.Since(began); d < 250*time.Millisecond {
		t.Fatalf("five frames in %v of waiting, want about 500 ms", d)
	}
	app.SetWorking(false)
	// A frame already due may still come; after it, 300 ms (three spinner steps) pass
	// without one. A spinner still turning never lets that hold.
	testwait.Until(t, "300 ms without a frame while idle", func() bool {
		idle := app.Stats().Frames
		time.Sleep(300 * time.Millisecond)
		return app.Stats().Frames == idle
	})
}
