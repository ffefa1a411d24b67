//go:build unix

package tui

import (
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// After fg, the shell and pi race over the terminal's modes: pi sets raw mode as soon as it
// is continued, and the shell may restore the job's cooked modes a moment later. Then pi is
// deaf: keys are echoed under the footer and reach it only line by line. rawHold watches the
// modes for a while after each resume and sets raw mode again whenever they have been undone.

// rawHoldFor is how long after a resume the modes are watched, and rawHoldEvery how often:
// the shell's restore comes within milliseconds, a loaded machine may take longer.
const (
	rawHoldFor   = 5 * time.Second
	rawHoldEvery = 10 * time.Millisecond
)

// rawHold keeps the terminal at fd in pi's raw modes, read once while pi surely holds them.
// It is active from hold to release: polling for rawHoldFor, and whenever the reader sees an
// end of input, which a terminal in raw mode never gives.
type rawHold struct {
	fd     int
	want   unix.Termios
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	active bool
}

// openRawHold opens the terminal for its modes only (reads and writes stay tcell's) and
// reads the modes to keep: call it once raw mode is set.
func openRawHold() (*rawHold, *os.File, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/tty for its modes: %w", err)
	}
	h, err := newRawHold(int(f.Fd()))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return h, f, nil
}

// newRawHold keeps the modes the terminal at fd has now; the hold starts active.
func newRawHold(fd int) (*rawHold, error) {
	want, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, fmt.Errorf("read the terminal's modes: %w", err)
	}
	return &rawHold{fd: fd, want: *want, active: true}, nil
}

// hold sets pi's modes again if they are not in force (the shell may have restored its own
// between pi's setting them and now) and watches them for rawHoldFor.
func (h *rawHold) hold() {
	h.release()
	h.mu.Lock()
	h.active = true
	h.mu.Unlock()
	h.check()
	h.stop = make(chan struct{})
	h.wg.Add(1)
	go h.watch(h.stop)
}

// check sets the modes again when they have been undone, while the hold is active.
func (h *rawHold) check() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.active {
		return
	}
	now, err := unix.IoctlGetTermios(h.fd, ioctlGetTermios)
	if err != nil || sameModes(now, &h.want) {
		return
	}
	unix.IoctlSetTermios(h.fd, ioctlSetTermios, &h.want) // on failure the next check tries again
}

func (h *rawHold) watch(stop chan struct{}) {
	defer h.wg.Done()
	tick := time.NewTicker(rawHoldEvery)
	defer tick.Stop()
	end := time.After(rawHoldFor)
	for {
		select {
		case <-stop:
			return
		case <-end:
			return
		case <-tick.C:
			h.check()
		}
	}
}

// release stops holding (before pi hands the terminal back to the shell, and at exit).
func (h *rawHold) release() {
	h.mu.Lock()
	h.active = false
	h.mu.Unlock()
	if h.stop != nil {
		close(h.stop)
		h.wg.Wait()
		h.stop = nil
	}
}

// sameModes compares what decides whether pi reads keys one by one, unechoed.
func sameModes(a, b *unix.Termios) bool {
	return a.Iflag == b.Iflag && a.Oflag == b.Oflag && a.Lflag == b.Lflag && a.Cflag == b.Cflag &&
		a.Cc[unix.VMIN] == b.Cc[unix.VMIN] && a.Cc[unix.VTIME] == b.Cc[unix.VTIME]
}
