//go:build unix

package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

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
	if hold, f, err := openRawHold(); err == nil {
		t.hold = hold
		defer f.Close()
	}
	t.ip = tcell.NewInputProcessor(t.events)
	t.write(termSetup + theme.Query)
	t.startReading()
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
	tty     tcell.Tty
	ip      tcell.InputProcessor
	events  chan tcell.Event
	app     *App
	bg      *bgProbe
	hold    *rawHold      // nil when /dev/tty could not be opened a second time
	reading chan struct{} // closed when the reader has ended
}

func (t *terminal) write(s string) { t.tty.Write([]byte(s)) }

func (t *terminal) restore() {
	if t.hold != nil {
		t.hold.release()
	}
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

// read feeds the input parser until the tty fails (it is stopped on suspend and exit). An
// end of input is not the end: a terminal gives one only when its raw modes were undone
// (VMIN 0, or a cooked ^D), so the modes are set again and reading goes on.
func (t *terminal) read(done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 4096)
	for {
		n, err := t.tty.Read(buf)
		if n > 0 {
			t.ip.ScanUTF8(t.bg.see(buf[:n]))
		}
		if errors.Is(err, io.EOF) && n == 0 {
			if t.hold != nil {
				t.hold.check()
			}
			time.Sleep(5 * time.Millisecond) // a terminal left at VMIN 0 must not spin this
			continue
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
				if err := t.suspend(); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("terminal: %w", errSignal{s})
		case ev := <-t.events:
			if k, ok := ev.(*tcell.EventKey); ok {
				switch t.app.opts.Keys.Action(normalizeKey(k)) {
				case "suspend":
					if err := t.suspend(); err != nil {
						return err
					}
					continue
				case "external-editor":
					if err := t.editExternally(); err != nil {
						return err
					}
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

// suspend hands the terminal back to the shell (Ctrl+Z) and takes it again on fg.
func (t *terminal) suspend() error {
	t.handOver()
	// SIGSTOP, not SIGTSTP: once SIGTSTP has been subscribed to, the Go runtime keeps
	// handling it even after signal.Reset, so it would never stop the process.
	syscall.Kill(0, syscall.SIGSTOP) // the process group stops here until fg
	if err := t.takeBack(); err != nil {
		return fmt.Errorf("terminal: taking the keyboard back after fg: %w", err)
	}
	return nil
}

// handOver gives the terminal to someone else (the shell, an editor): drawing stops, the
// modes are restored and reading ends before it returns.
func (t *terminal) handOver() {
	t.app.pause()
	if t.hold != nil {
		t.hold.release() // the terminal's modes are the other program's now
	}
	t.write(termRestore)
	t.tty.Drain()
	t.tty.Stop()
	<-t.reading
}

// takeBack takes the terminal again: raw mode (held a while, see rawHold, since the shell
// may restore its own modes after pi has set them), pi's modes, a reader, and the live region
// drawn afresh below whatever was printed meanwhile. A terminal that cannot be taken back is
// an error that ends the terminal UI, not a deaf pi.
func (t *terminal) takeBack() error {
	var err error
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		if err = t.tty.Start(); err == nil {
			break
		}
		if wait > time.Second { // the shell may still be handing the terminal over
			return err
		}
		time.Sleep(wait)
	}
	if t.hold != nil {
		t.hold.hold()
	}
	t.write(termSetup)
	t.startReading()
	t.resized()
	t.app.resume()
	return nil
}

// startReading starts the reader; handOver waits for it to end.
func (t *terminal) startReading() {
	t.reading = make(chan struct{})
	go t.read(t.reading)
}
