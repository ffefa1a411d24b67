//go:build unix

package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gdamore/tcell/v2"

	"pi/tui/theme"
)

// Terminal modes pi turns on while it runs and off when it stops: bracketed paste, a hidden
// hardware cursor (the editor draws its own), the kitty keyboard protocol (disambiguate, so
// Shift+Enter and Escape are distinct keys) with xterm's modifyOtherKeys as the fallback.
const (
	termSetup   = "\x1b[?2004h\x1b[?25l\x1b[>1u\x1b[>4;2m"
	termRestore = "\x1b[>4;0m\x1b[<u\x1b[?2004l\x1b[?25h\x1b[0m"
)

// Run runs an App on the controlling terminal until ctx is done: raw mode, input through
// tcell's parser, resize, and Ctrl+Z suspend. start is called with the App before input is
// read; the controller subscribes to the agent there and calls cancel from OnQuit. The
// terminal is restored on return, on panic and on SIGTERM, SIGHUP or SIGINT.
func Run(ctx context.Context, cb Callbacks, opts Options, start func(*App)) (err error) {
	tty, err := tcell.NewDevTty()
	if err != nil {
		return fmt.Errorf("open terminal /dev/tty: %w", err)
	}
	if err := tty.Start(); err != nil {
		return fmt.Errorf("start terminal /dev/tty: %w", err)
	}
	ws, err := tty.WindowSize()
	if err != nil || ws.Width <= 0 || ws.Height <= 0 {
		ws = tcell.WindowSize{Width: 80, Height: 24}
	}
	t := &terminal{tty: tty, events: make(chan tcell.Event, 64), bg: newBgProbe(envBackground)}
	t.ip = tcell.NewInputProcessor(t.events)
	t.write(termSetup + theme.Query)
	go t.read()
	if opts.Theme == "" || opts.Theme == "auto" {
		t.bg.wait(bgTimeout)
	}
	opts.darkBackground = t.bg.darkBackground
	if opts.Graphics == "" && !opts.HideImages {
		opts.Graphics = DetectGraphics(os.Getenv)
	}
	app := NewApp(tty, ws.Width, ws.Height, cb, opts)
	t.app = app
	defer func() {
		app.Close()
		t.restore()
		if p := recover(); p != nil {
			panic(p)
		}
	}()
	tty.NotifyResize(t.resized)
	if start != nil {
		start(app)
	}
	app.Flush()
	return t.loop(ctx)
}

type terminal struct {
	tty    tcell.Tty
	ip     tcell.InputProcessor
	events chan tcell.Event
	app    *App
	bg     *bgProbe
}

func (t *terminal) write(s string) { t.tty.Write([]byte(s)) }

func (t *terminal) restore() {
	t.write(termRestore)
	t.tty.Drain()
	t.tty.Stop()
	t.tty.Close()
}

func (t *terminal) resized() {
	if ws, err := t.tty.WindowSize(); err == nil && ws.Width > 0 && ws.Height > 0 {
		t.app.Resize(ws.Width, ws.Height)
	}
}

// read feeds the input parser until the tty fails (it is stopped on suspend and exit).
func (t *terminal) read() {
	buf := make([]byte, 4096)
	for {
		n, err := t.tty.Read(buf)
		if n > 0 {
			t.ip.ScanUTF8(t.bg.see(buf[:n]))
		}
		if err != nil {
			return
		}
	}
}

func (t *terminal) loop(ctx context.Context) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTSTP)
	defer signal.Stop(sigs)
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-sigs:
			if s == syscall.SIGTSTP {
				t.suspend()
				continue
			}
			return fmt.Errorf("terminal: %w", errSignal{s})
		case ev := <-t.events:
			if k, ok := ev.(*tcell.EventKey); ok {
				switch t.app.opts.Keys.Action(normalizeKey(k)) {
				case "suspend":
					t.suspend()
					continue
				case "external-editor":
					t.editExternally()
					continue
				}
			}
			t.app.HandleEvent(ev)
		}
	}
}

type errSignal struct{ sig os.Signal }

func (e errSignal) Error() string { return "stopped by " + e.sig.String() }

// ErrSignal reports whether err says that a signal stopped the interactive mode.
func ErrSignal(err error) bool { return errors.As(err, new(errSignal)) }

// suspend hands the terminal back to the shell (Ctrl+Z) and takes it again on fg: the
// terminal modes are restored before stopping and set again after, and the live region is
// drawn afresh below whatever the shell printed meanwhile.
func (t *terminal) suspend() {
	t.app.pause()
	t.write(termRestore)
	t.tty.Drain()
	t.tty.Stop()
	// SIGSTOP, not SIGTSTP: once SIGTSTP has been subscribed to, the Go runtime keeps
	// handling it even after signal.Reset, so it would never stop the process.
	syscall.Kill(0, syscall.SIGSTOP) // the process group stops here until fg
	if err := t.tty.Start(); err != nil {
		return
	}
	t.write(termSetup)
	go t.read()
	t.resized()
	t.app.resume()
}
