package testwait

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RunCapped runs cmd with its output gathered and kills it, failing the test, once its resident
// memory passes capKB, so that a memory regression cannot take the machine down. It fails the
// test when cmd fails, and returns the output and cmd's peak resident memory in kB.
func RunCapped(t testing.TB, cmd *exec.Cmd, capKB int) (output string, peakKB int) {
	t.Helper()
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("%s: %v\n%s", cmd.Path, err, out.String())
			}
			return out.String(), int(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
		case <-tick.C:
			if rss := ResidentKB(cmd.Process.Pid); rss > capKB {
				cmd.Process.Kill()
				<-exited
				t.Fatalf("%s killed at %d kB resident, over the %d kB cap\n%s", cmd.Path, rss, capKB, out.String())
			}
		}
	}
}

// ResidentKB is the resident memory of process pid (VmRSS) in kB, 0 once it is gone.
func ResidentKB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}

// lockedBuffer is a child's output, written by exec's copying goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
