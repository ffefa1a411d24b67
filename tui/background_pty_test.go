//go:build linux

package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"pi/tui/theme"
)

// openPty opens a pseudo-terminal of w×h cells: the master the test plays the terminal on,
// and the slave pi runs on.
func openPty(t *testing.T, w, h int) (master, slave *os.File) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	var n uint32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatal(err)
	}
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	ws := [4]uint16{uint16(h), uint16(w), 0, 0}
	if err := ioctl(slave, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		t.Fatal(err)
	}
	return master, slave
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// ptyOutput collects what pi writes to its terminal.
type ptyOutput struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (o *ptyOutput) String() string { o.mu.Lock(); defer o.mu.Unlock(); return o.buf.String() }

func (o *ptyOutput) waitFor(t *testing.T, want string, timeout time.Duration) bool {
	t.Helper()
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(o.String(), want) {
			return true
		}
	}
	return false
}

// With the "auto" theme the real binary asks its terminal for the background and draws in
// the theme that suits it; keys typed before the answer are kept; a terminal that answers
// only DA1 leaves it to COLORFGBG, and one that answers nothing costs at most the timeout.
func TestAutoThemeFromTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: skipped in -short mode")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pi")
	if out, err := releaseBuild(bin).CombinedOutput(); err != nil {
		t.Skipf("pi does not build: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "script.json"), []byte(`{"replies": [{"content": [{"type": "text", "text": "ok"}]}]}`), 0o644)
	tests := []struct {
		name, answer, colorfgbg string
		want                    *theme.Theme
	}{
		{"white background", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c", "", theme.Light()},
		{"black background", "\x1b]11;rgb:0000/0000/0000\a\x1b[?62;22c", "0;15", theme.Dark()},
		{"DA1 only, COLORFGBG light", "\x1b[?1;2c", "0;15", theme.Light()},
		{"no answer", "", "", theme.Dark()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			master, slave := openPty(t, 100, 30)
			defer master.Close()
			cmd := exec.Command(bin, "--faux-script", "script.json")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PI_HOME="+dir, "COLORFGBG="+tt.colorfgbg, "TERM=xterm-256color")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			slave.Close()
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			out := &ptyOutput{}
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := master.Read(buf)
					out.mu.Lock()
					out.buf.Write(buf[:n])
					out.mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
			if !out.waitFor(t, "\x1b]11;?", 10*time.Second) {
				t.Fatalf("pi never asked for the background; output %q", out.String())
			}
			asked := time.Now()
			master.WriteString("typed-early") // keys typed while pi waits for the answer
			time.Sleep(20 * time.Millisecond)
			master.WriteString(tt.answer)
			if !out.waitFor(t, tt.want.Border, 10*time.Second) || !out.waitFor(t, "typed-early", 5*time.Second) {
				t.Fatalf("no %s border or typed text; output %q", tt.want.Name, out.String())
			}
			waited := time.Since(asked)
			if tt.answer == "" && waited < bgTimeout*2/3 { // measured from when the question got here
				t.Errorf("drew after %v, before the timeout", waited)
			}
			t.Logf("%s: first frame %v after the question (the test answers 20 ms after it)", tt.name, waited.Round(time.Millisecond))
			other := theme.Dark()
			if tt.want.Name == "dark" {
				other = theme.Light()
			}
			if _, foreign := coloursIn(out.String(), tt.want); len(foreign) > 0 || strings.Contains(out.String(), other.Border) {
				t.Errorf("colours not from the %s theme: %q", tt.want.Name, foreign)
			}
		})
	}
}
