//go:build linux

package tui

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// TestRawHoldTakesTheModesBack: after a resume the shell may restore cooked modes once pi has
// set raw ones; the hold sets them back (polling, or at once when the reader saw an end of
// input), and never while released, when the terminal is the shell's.
func TestRawHoldTakesTheModesBack(t *testing.T) {
	master, slave := openPty(t, 80, 24)
	defer master.Close()
	defer slave.Close()
	fd := int(slave.Fd())
	cooked, err := term.MakeRaw(fd)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newRawHold(fd)
	if err != nil {
		t.Fatal(err)
	}
	isRaw := func() bool {
		now, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
		return err == nil && sameModes(now, &h.want)
	}
	undo := func() {
		if err := term.Restore(fd, cooked); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		act  func() // the shell's restore and what pi does about it
		wait bool   // the modes come back by polling, not at once
		raw  bool
	}{
		{"resumed: the watch sets them back", func() { h.hold(); undo() }, true, true},
		{"an end of input: set back at once", func() { undo(); h.check() }, false, true},
		{"released: the shell's modes stay", func() { h.release(); undo(); h.check() }, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.act()
			for deadline := time.Now().Add(3 * time.Second); c.wait && c.raw && !isRaw() && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			if c.wait && !c.raw {
				time.Sleep(5 * rawHoldEvery) // long enough for a watch that should not be there
			}
			if isRaw() != c.raw {
				t.Fatalf("raw modes in force: %v, want %v", isRaw(), c.raw)
			}
		})
	}
	h.release()
}
