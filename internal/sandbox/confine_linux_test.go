//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/internal/proc"
)

// confinedRun runs command with `sh -c` in dir, confined by sb, and returns its output and
// exit code.
func confinedRun(t *testing.T, sb *Sandbox, dir, command string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := proc.Capture(ctx, proc.CaptureSpec{Command: command, Dir: dir, Combined: true, Confine: sb.Confine})
	if err != nil {
		t.Fatal(err)
	}
	return res.Stdout, res.Code
}

// needLandlock skips where the kernel cannot confine: the sandbox itself refuses there, as
// TestNewFallback shows.
func needLandlock(t *testing.T, abi int) {
	t.Helper()
	if v, err := kernelABI(); err != nil || v < abi {
		t.Skipf("this kernel offers Landlock ABI %d (%v); the test needs %d", v, err, abi)
	}
}

// TestConfinedWrites: a confined command writes in the project, the temp folder, allow_write
// and the devices, and nowhere else; it still reads everywhere. Each row also runs
// unconfined, where every write works: the rows show the sandbox, not the file modes.
func TestConfinedWrites(t *testing.T) {
	needLandlock(t, 1)
	base := t.TempDir()
	project, tmp, extra, outside := filepath.Join(base, "project"), filepath.Join(base, "tmp"),
		filepath.Join(base, "extra"), filepath.Join(base, "home")
	for _, d := range []string{project, tmp, extra, outside} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(outside, "readme"), []byte("readable\n"), 0o644)
	t.Setenv("TMPDIR", tmp)
	sb, notices, err := New(Settings{Mode: "workspace", AllowWrite: []string{extra}}, project, Options{})
	if err != nil || sb == nil || notices != nil {
		t.Fatalf("New: %v %v %q", sb, err, notices)
	}
	cases := []struct {
		name, command string
		confinedOK    bool
	}{
		{"project", "touch ./inside && mkdir -p sub/dir && echo x > sub/dir/f && mv sub/dir/f f2 && rm f2", true},
		{"temp folder", "touch " + tmp + "/t && mkdir " + tmp + "/d && mv " + tmp + "/t " + tmp + "/d/", true},
		{"allow_write", "touch " + extra + "/e", true},
		{"devices", "echo x > /dev/null && head -c 4 /dev/urandom > /dev/null && echo ok > /dev/stdout && echo e >&2", true},
		{"reads outside", "cat " + outside + "/readme && ls / > /dev/null", true},
		{"outside", "touch " + outside + "/outside", false},
		{"mkdir outside", "mkdir " + outside + "/d", false},
		{"remove outside", "rm " + outside + "/readme", false},
		{"move in from outside", "mv " + outside + "/readme ./stolen", false},
		{"symlink out", "ln -s " + outside + " ./link && touch ./link/via-link", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, code := confinedRun(t, sb, project, tc.command)
			if (code == 0) != tc.confinedOK {
				t.Fatalf("confined: exit %d, want success %v; output:\n%s", code, tc.confinedOK, out)
			}
			if !tc.confinedOK && !strings.Contains(out, "ermission denied") && !strings.Contains(out, "not permitted") {
				t.Fatalf("confined: the failure is not a permission error:\n%s", out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "outside")); err == nil {
		t.Fatal("a confined command wrote outside")
	}
	if out, code := confinedRun(t, nil, project, "touch "+outside+"/outside"); code != 0 {
		t.Fatalf("unconfined, the same write fails (%d): %s", code, out)
	}
}

// TestConfinedNetwork: with network = false a confined command cannot connect to a listener
// on 127.0.0.1; with the default it can.
func TestConfinedNetwork(t *testing.T) {
	needLandlock(t, needABINetwork)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo connected'`, port)
	deny := false
	for _, tc := range []struct {
		name      string
		s         Settings
		connected bool
	}{
		{"network allowed", Settings{Mode: "workspace"}, true},
		{"network = false", Settings{Mode: "workspace", Network: &deny}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb, _, err := New(tc.s, t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			out, code := confinedRun(t, sb, t.TempDir(), connect)
			if (code == 0 && strings.Contains(out, "connected")) != tc.connected {
				t.Fatalf("exit %d, want connected %v; output:\n%s", code, tc.connected, out)
			}
			if !tc.connected && !strings.Contains(out, "ermission denied") {
				t.Fatalf("the failure is not a permission error:\n%s", out)
			}
		})
	}
}

// TestConfinedCannotSignalOutside: a confined command cannot kill pi (or anything else
// outside the sandbox), but can still signal what it started itself.
func TestConfinedCannotSignalOutside(t *testing.T) {
	needLandlock(t, 6)
	sb, _, err := New(Settings{Mode: "workspace"}, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, code := confinedRun(t, sb, t.TempDir(), fmt.Sprintf("kill -0 %d", os.Getpid()))
	if code == 0 || !strings.Contains(out, "not permitted") {
		t.Fatalf("signalling the test process: exit %d: %s", code, out)
	}
	if out, code := confinedRun(t, sb, t.TempDir(), "sleep 5 & kill $!"); code != 0 {
		t.Fatalf("signalling its own child: exit %d: %s", code, out)
	}
}

// TestHelperFailsClosed: a helper that cannot confine itself runs nothing.
func TestHelperFailsClosed(t *testing.T) {
	var stderr strings.Builder
	marker := filepath.Join(t.TempDir(), "ran")
	code := RunHelper([]string{helperArg0, `{"write":["relative"]}`, "/bin/sh", "sh", "-c", "touch " + marker}, &stderr)
	if code != helperFailed || !strings.Contains(stderr.String(), "pi sandbox: policy") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
}

// BenchmarkStart measures what confining costs a command: `sh -c true` started through proc,
// plain and through the helper (one more exec of the binary, and the ruleset).
func BenchmarkStart(b *testing.B) {
	if _, err := kernelABI(); err != nil {
		b.Skip(err)
	}
	sb, _, err := New(Settings{Mode: "workspace"}, b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		sb   *Sandbox
	}{{"plain", nil}, {"confined", sb}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := proc.Capture(context.Background(), proc.CaptureSpec{Command: "true", Confine: bc.sb.Confine})
				if err != nil || res.Code != 0 {
					b.Fatal(err, res)
				}
			}
		})
	}
}
