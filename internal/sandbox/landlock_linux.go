//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// selfExe starts the running binary again: the kernel resolves it in the new process, before
// exec, so a pi binary replaced on disk since it started still starts the same program.
const selfExe = "/proc/self/exe"

// kernelABI asks the kernel which Landlock ABI it offers: an error where it has none or it
// is disabled.
func kernelABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("this kernel has no Landlock (%w)", err)
	}
	return v, nil
}

// presets are go-landlock's configurations by ABI version. pi uses at most V7's rights, so
// that what a command may do does not change with the kernel: V9 and later would also deny
// connecting to Unix sockets made outside, V10 UDP.
func presets() []landlock.Config {
	return []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7}
}

// confineAndExec restricts this process, then replaces it with the command, which keeps the
// restriction and hands it to everything it starts: everything stays readable and
// executable, writes succeed only under pol.Write and on the devices, and with DenyNetwork
// TCP connect and bind fail. Signals cannot reach processes outside the sandbox (pi, the
// user's other programs); with DenyNetwork neither can abstract Unix sockets. Nothing is
// done in best effort: a kernel that cannot enforce all of it is an error. It returns only
// on failure.
//
// The restriction is applied to this thread alone, which then executes the command: the
// kernel ends the helper's other threads at exec, so no thread outside the sandbox remains.
func confineAndExec(pol policy, path string, argv []string) error {
	abi, err := kernelABI()
	if err != nil {
		return err
	}
	if lack := lacking(abi, nil, pol.DenyNetwork); lack != "" {
		return errors.New(lack)
	}
	preset := presets()[min(abi, len(presets()))-1]
	cfg := landlock.Config{HandledAccessFS: preset.HandledAccessFS, Scoped: preset.Scoped & ll.ScopeSignal}
	if pol.DenyNetwork {
		cfg.HandledAccessNet, cfg.Scoped = preset.HandledAccessNet, preset.Scoped
	}
	fd, flags, err := cfg.NewRulesetFD(rules(pol, abi)...)
	if err != nil {
		return fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("building the Landlock ruleset: nothing to enforce")
	}
	runtime.LockOSThread() // never unlocked: this thread becomes the command
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("enforcing the Landlock ruleset: %w", err)
	}
	unix.Close(fd)
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	return nil
}

// rules grant what confineSelf leaves allowed, with the rights abi knows of.
func rules(pol policy, abi int) []landlock.Rule {
	write := landlock.RWDirs(pol.Write...).IgnoreIfMissing()
	// devices stay readable and writable, with their ioctls: terminals and the usual sinks
	files := landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
		"/dev/tty", "/dev/ptmx").IgnoreIfMissing()
	dirs := landlock.RWDirs("/dev/pts", "/dev/shm").IgnoreIfMissing()
	if abi >= 2 { // moving files between writable folders (mv, git)
		write = write.WithRefer()
	}
	if abi >= 5 { // terminal ioctls on devices opened in the sandbox
		files, dirs = files.WithIoctlDev(), dirs.WithIoctlDev()
	}
	return []landlock.Rule{landlock.RODirs("/"), write, files, dirs}
}
