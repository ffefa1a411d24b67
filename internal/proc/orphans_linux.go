package proc

import (
	"context"
	"os"
	"os/signal"
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
// left pi's process groups; pi calls it as it exits. The processes in keep, and everything
// below them, are left running: a server the user asked pi to leave running.
func KillDescendants(keep ...int) int {
	killed := 0
	for range killRounds {
		pids := descendants(os.Getpid(), keep)
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

// descendants are the living (not zombie) processes below root, but for the ones in keep and
// their own descendants.
func descendants(root int, keep []int) []int {
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
		if slices.Contains(keep, pid) {
			continue
		}
		if !zombie[pid] {
			out = append(out, pid)
		}
		queue = append(queue, children[pid]...)
	}
	return out
}

// ReapOrphans waits, until ctx ends, for the adopted orphans that have exited, so that they do
// not stay zombies while a long-lived pi (pi serve) runs. It never waits for a child pi started
// itself, whose status belongs to its os/exec Cmd: pi starts children in its own process group
// or in a group of their own, never in another session, so an exited child of pi that is in
// another session, or in another child's group, was adopted.
func ReapOrphans(ctx context.Context) {
	exited := make(chan os.Signal, 1)
	signal.Notify(exited, syscall.SIGCHLD)
	defer signal.Stop(exited)
	for {
		select {
		case <-ctx.Done():
			return
		case <-exited:
			reapAdopted()
		}
	}
}

// reapAdopted waits for every exited adopted orphan found in /proc.
func reapAdopted() {
	self, group := os.Getpid(), syscall.Getpgrp()
	session, err := unix.Getsid(0)
	if err != nil {
		return
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok || st.ppid != self || st.state != "Z" {
			continue
		}
		if st.session != session || st.group != pid && st.group != group {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WNOHANG, nil) // only pi waits for its children: pid is still this zombie
		}
	}
}

// procStat is what /proc/PID/stat says of a process's family.
type procStat struct {
	state                string
	ppid, group, session int
}

// readProcStat reads /proc/PID/stat, whose command name (in parentheses) may itself hold spaces
// and parentheses.
func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 4 {
		return procStat{}, false
	}
	var nums [3]int
	for j := range nums {
		if nums[j], err = strconv.Atoi(fields[j+1]); err != nil {
			return procStat{}, false
		}
	}
	return procStat{state: fields[0], ppid: nums[0], group: nums[1], session: nums[2]}, true
}

// readStat is a process's parent and state.
func readStat(pid int) (ppid int, state string, ok bool) {
	st, ok := readProcStat(pid)
	return st.ppid, st.state, ok
}
