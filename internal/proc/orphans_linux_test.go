package proc

import (
	"context"
	"os"
	"os/exec"
	"testing"
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
