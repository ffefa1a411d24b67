//go:build linux

package packages

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"pi/internal/testwait"
)

const installChildEnv = "PI_INSTALL_MEMORY_CHILD"

// pi install of a folder read each file whole: a 4 GB file (sparse: it costs no disk) took
// 4 GB of memory, and more than the machine had crashed pi. The copy streams, and a hole
// stays a hole.
func TestInstallOfAHugeFileStreams(t *testing.T) {
	if dir := os.Getenv(installChildEnv); dir != "" {
		installHugeChild(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("reads 4 GB of a sparse file")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "big-pkg")
	write(t, src, map[string]string{"package.toml": "name = \"big\"\n", "weights.bin": ""})
	if err := os.Truncate(filepath.Join(src, "weights.bin"), 4<<30); err != nil {
		t.Fatal(err)
	}
	const capKB, wantKB = 1 << 20, 64 << 10
	peak := runCappedChild(t, capKB, installChildEnv+"="+dir)
	t.Logf("peak RSS of the install: %d kB", peak)
	if peak > wantKB {
		t.Fatalf("peak RSS %d kB, want at most %d kB", peak, wantKB)
	}
	fi, err := os.Stat(filepath.Join(dir, "root", "big", "weights.bin"))
	if err != nil || fi.Size() != 4<<30 {
		t.Fatalf("the copy: %v, %v", fi, err)
	}
	if used := fi.Sys().(*syscall.Stat_t).Blocks * 512; used > 1<<20 {
		t.Errorf("the copy takes %d bytes of disk; its holes were written out", used)
	}
}

func installHugeChild(t *testing.T, dir string) {
	if _, err := Install(context.Background(), filepath.Join(dir, "root"), filepath.Join(dir, "src", "big-pkg")); err != nil {
		t.Fatal(err)
	}
}

// runCappedChild runs this test again in a child with env added, kills it once its resident
// memory passes capKB (failing the test), and returns its peak resident memory in kB.
func runCappedChild(t *testing.T, capKB int, env ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), env...)
	_, peak := testwait.RunCapped(t, cmd, capKB)
	return peak
}
