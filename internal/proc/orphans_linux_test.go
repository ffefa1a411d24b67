package proc

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// orphanHelperEnv makes the test binary play pi: adopt orphans, start a shell that leaves a
// `setsid` grandchild behind, and kill its descendants as it exits.
const orphanHelperEnv = "PI_PROC_ORPHAN_HELPER"

func TestOrphanHelperProcess(t *testing.T) {
	pidPath := os.Getenv(orphanHelperEnv)
	if pidPath == "" {
		t.Skip("only run as the helper of TestDescendantsThatLeftTheGroupDieAtExit")
	}
	if err := AdoptOrphans(); err != nil {
		t.Fatal(err)
	}
	cmd := Command(context.Background(), "sh", "-c", `setsid sh -c 'echo $$ > "$0"; exec sleep 1000' "$0" &`, pidPath)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	waitForPid(t, pidPath) // the grandchild runs, out of the shell's group, its parent gone
	if n := KillDescendants(); n != 1 {
		t.Fatalf("killed %d descendants, want the one grandchild", n)
	}
}

// TestDescendantsThatLeftTheGroupDieAtExit: a process that left its group with setsid and
// whose parent is gone is still killed when the process that adopted it exits.
func TestDescendantsThatLeftTheGroupDieAtExit(t *testing.T) {
	pidPath := pidFile(t)
	helper := exec.Command(os.Args[0], "-test.run=^TestOrphanHelperProcess$")
	helper.Env = append(os.Environ(), orphanHelperEnv+"="+pidPath)
	if out, err := helper.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	assertGone(t, waitForPid(t, pidPath))
}

// reapHelperEnv makes the test binary play a long-lived pi: adopt orphans and reap them while
// its own children's statuses stay theirs.
const reapHelperEnv = "PI_PROC_REAP_HELPER"

func TestReapHelperProcess(t *testing.T) {
	pidPath := os.Getenv(reapHelperEnv)
	if pidPath == "" {
		t.Skip("only run as the helper of TestExitedOrphansAreReapedWhileOwnChildrenKeepTheirStatus")
	}
	if err := AdoptOrphans(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ReapOrphans(ctx)
	// An orphan in a session of its own, and one left in a finished shell's group.
	for _, script := range []string{
		`setsid sh -c 'echo $$ >> "$0"; exec sleep 0.2' "$0" &`,
		`sh -c 'echo $$ >> "$0"; exec sleep 0.2' "$0" &`,
	} {
		if err := Command(ctx, "sh", "-c", script, pidPath).Run(); err != nil {
			t.Fatal(err)
		}
	}
	// Meanwhile pi's own children, in its group and in groups of their own, exit with 3: the
	// reaper must leave each status to its Cmd.
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("sh", "-c", "exit 3")
			if i%2 == 0 {
				cmd = Command(ctx, "sh", "-c", "exit 3")
			}
			if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
				t.Errorf("own child: %v, want exit status 3", err)
			}
		}()
	}
	wg.Wait()
	for _, pid := range readPids(t, pidPath, 2) {
		waitUntil(t, 30*time.Second, func() bool { _, _, ok := readStat(pid); return !ok })
	}
}

// TestExitedOrphansAreReapedWhileOwnChildrenKeepTheirStatus: an orphan pi adopted does not
// stay a zombie after it exits, and reaping it never takes a status from pi's own children.
func TestExitedOrphansAreReapedWhileOwnChildrenKeepTheirStatus(t *testing.T) {
	pidPath := pidFile(t)
	helper := exec.Command(os.Args[0], "-test.run=^TestReapHelperProcess$", "-test.v")
	helper.Env = append(os.Environ(), reapHelperEnv+"="+pidPath)
	if out, err := helper.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: TestReapHelperProcess") {
		t.Fatalf("helper: %v\n%s", err, out)
	}
}

// readPids waits until path holds n pids, one a line.
func readPids(t *testing.T, path string, n int) []int {
	t.Helper()
	var pids []int
	waitUntil(t, 30*time.Second, func() bool {
		data, _ := os.ReadFile(path)
		pids = pids[:0]
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return len(pids) >= n
	})
	return pids
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, deadline time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(deadline); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("still not so after %s", deadline)
		}
	}
}

// keepHelperEnv makes the test binary play a pi that leaves one server running as it exits.
const keepHelperEnv = "PI_PROC_KEEP_HELPER"

func TestKeepHelperProcess(t *testing.T) {
	dir := os.Getenv(keepHelperEnv)
	if dir == "" {
		t.Skip("only run as the helper of TestKillDescendantsLeavesTheKeptRunning")
	}
	if err := AdoptOrphans(); err != nil {
		t.Fatal(err)
	}
	kept := exec.Command("sh", "-c", `sleep 1000 & echo $! > "$0"; wait`, dir+"/kept-child.pid")
	kept.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	other := exec.Command("sleep", "1000")
	if err := kept.Start(); err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	waitForPid(t, dir+"/kept-child.pid")
	os.WriteFile(dir+"/kept.pid", []byte(strconv.Itoa(kept.Process.Pid)+"\n"), 0o600)
	os.WriteFile(dir+"/other.pid", []byte(strconv.Itoa(other.Process.Pid)+"\n"), 0o600)
	if n := KillDescendants(kept.Process.Pid); n != 1 {
		t.Fatalf("killed %d descendants, want the one not kept", n)
	}
}

// TestKillDescendantsLeavesTheKeptRunning: a process pi was asked to leave running (a detached
// `ollama serve`), and its own children, survive pi's exit; everything else is killed.
func TestKillDescendantsLeavesTheKeptRunning(t *testing.T) {
	dir := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestKeepHelperProcess$")
	helper.Env = append(os.Environ(), keepHelperEnv+"="+dir)
	if out, err := helper.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	kept, keptChild := waitForPid(t, dir+"/kept.pid"), waitForPid(t, dir+"/kept-child.pid")
	defer syscall.Kill(keptChild, syscall.SIGKILL)
	defer syscall.Kill(kept, syscall.SIGKILL)
	assertGone(t, waitForPid(t, dir+"/other.pid"))
	if !processAlive(kept) || !processAlive(keptChild) {
		t.Fatalf("the kept process (%v) or its child (%v) was killed", processAlive(kept), processAlive(keptChild))
	}
}

// TestKillEachOnceCountsAProcessOnce: a process still dying when the next round scans /proc
// is neither signalled nor counted again; a new process that got a killed one's pid back,
// or a child found in a later round, is.
func TestKillEachOnceCountsAProcessOnce(t *testing.T) {
	dying, child := process{pid: 100, startTime: 5}, process{pid: 101, startTime: 6}
	reused := process{pid: 100, startTime: 9}
	tests := []struct {
		name            string
		rounds          [][]process // what each scan finds; empty after the last
		wantKilled      int
		wantSignalsSent int
	}{
		{"nothing to kill", nil, 0, 0},
		{"one that dies at once", [][]process{{dying}}, 1, 1},
		{"one still dying in later scans", [][]process{{dying}, {dying}, {dying}}, 1, 1},
		{"a child found in the next round", [][]process{{dying}, {dying, child}}, 2, 2},
		{"a new process with a killed one's pid", [][]process{{dying}, {reused}}, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			round, signals := 0, 0
			scan := func() []process {
				if round >= len(tt.rounds) {
					return nil
				}
				round++
				return tt.rounds[round-1]
			}
			kill := func(int) error { signals++; return nil }
			if n := killEachOnce(scan, kill); n != tt.wantKilled || signals != tt.wantSignalsSent {
				t.Fatalf("killed %d with %d signals, want %d with %d", n, signals, tt.wantKilled, tt.wantSignalsSent)
			}
		})
	}
}
