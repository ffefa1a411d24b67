package proc

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// AdoptOrphans makes this process the subreaper of its descendants: one that leaves its
// process group and is orphaned (`setsid sleep 1000 &` in a tool's command, a daemon an MCP
// server forks) becomes this process's child instead of init's, so KillDescendants still finds
// it. It is process-wide state, set once by main.
func AdoptOrphans() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// killRounds bounds KillDescendants: each round kills what the /proc scan found, and a
// process forking as it dies leaves children for the next.
const killRounds = 8

// KillDescendants sends SIGKILL to every living descendant of this process, found through
// /proc, and says how many it killed. With AdoptOrphans, that includes the processes that
// left pi's process groups; pi calls it as it exits.
func KillDescendants() int {
	killed := 0
	for range killRounds {
		pids := descendants(os.Getpid())
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	return killed
}

// descendants are the living (not zombie) processes below root.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	zombie := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state, ok := readStat(pid); ok {
			children[ppid] = append(children[ppid], pid)
			zombie[pid] = state == "Z" || state == "X"
		}
	}
	var out []int
	for queue := slices.Clone(children[root]); len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		if !zombie[pid] {
			out = append(out, pid)
		}
		queue = append(queue, children[pid]...)
	}
	return out
}

// readStat is a process's parent and state from /proc/PID/stat, whose command name (in
// parentheses) may itself hold spaces and parentheses.
func readStat(pid int) (ppid int, state string, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(fields[1])
	return ppid, fields[0], err == nil
}
