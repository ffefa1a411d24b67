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
// process forking as it was killed leaves children for the next.
const killRounds = 8

// KillDescendants sends SIGKILL to every living descendant of this process, found through
// /proc, and says how many processes it killed, each once. With AdoptOrphans, that includes
// the processes that left pi's process groups; pi calls it as it exits. The processes in
// keep, and everything below them, are left running: a server the user asked pi to leave
// running.
func KillDescendants(keep ...int) int {
	scan := func() []process { return descendants(os.Getpid(), keep) }
	return killEachOnce(scan, func(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) })
}

// killEachOnce kills what scan finds, round after round until a round finds nothing new, and
// says how many processes it killed. A process killed in one round may still be dying (not
// yet a zombie) in the next scan: it is not signalled or counted again. Its start time tells
// it from a new process that got its pid back.
func killEachOnce(scan func() []process, kill func(pid int) error) int {
	killed := map[process]bool{}
	for range killRounds {
		fresh := 0
		for _, p := range scan() {
			if !killed[p] && kill(p.pid) == nil {
				killed[p] = true
				fresh++
			}
		}
		if fresh == 0 {
			break
		}
	}
	return len(killed)
}

// process names one process for its lifetime: a pid and the time it started, since the kernel
// hands a freed pid to a new process.
type process struct {
	pid       int
	startTime uint64
}

// descendants are the living (not zombie) processes below root, but for the ones in keep and
// their own descendants.
func descendants(root int, keep []int) []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	stats := map[int]procStat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok {
			children[st.ppid] = append(children[st.ppid], pid)
			stats[pid] = st
		}
	}
	var out []process
	for queue := slices.Clone(children[root]); len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		if slices.Contains(keep, pid) {
			continue
		}
		if st := stats[pid]; st.state != "Z" && st.state != "X" {
			out = append(out, process{pid: pid, startTime: st.startTime})
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
	startTime            uint64 // in clock ticks since boot
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
	// After the name: state, ppid, pgrp, session, then fields up to starttime, the 20th.
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return procStat{}, false
	}
	var nums [3]int
	for j := range nums {
		if nums[j], err = strconv.Atoi(fields[j+1]); err != nil {
			return procStat{}, false
		}
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return procStat{}, false
	}
	return procStat{state: fields[0], ppid: nums[0], group: nums[1], session: nums[2], startTime: start}, true
}

// readStat is a process's parent and state.
func readStat(pid int) (ppid int, state string, ok bool) {
	st, ok := readProcStat(pid)
	return st.ppid, st.state, ok
}
