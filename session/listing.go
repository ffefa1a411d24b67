package session

// listing.go lists the sessions of several folders together (ours and pi's own) and prints
// them as `pi sessions` shows them.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mattn/go-runewidth"
)

// PiAgentDir is where the TypeScript pi keeps its files ($PI_CODING_AGENT_DIR, else
// ~/.pi/agent): its sessions are in the same format, so they can be listed and continued.
func PiAgentDir() string {
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".pi", "agent")
}

// ListAll lists the sessions of several folders together, newest first; a folder that does
// not exist holds none, and a folder named twice is read once.
func ListAll(ctx context.Context, dirs ...string) ([]Info, error) {
	var all []Info
	for i, dir := range dirs {
		if dir == "" || slices.Contains(dirs[:i], dir) {
			continue
		}
		infos, err := List(ctx, dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		all = append(all, infos...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Modified.After(all[j].Modified) })
	return all, nil
}

// Listed is a session as listings show it. A session started from another (a subagent's
// child, a fork, a clone: its header names a parentSession) is Depth rows below its parent when
// the list holds the parent; Parent is the parent's id, "" for a session of its own.
type Listed struct {
	Info
	Depth  int
	Parent string
}

// Orphan says whether the session names a parent the list does not hold: a listing marks it,
// since it cannot show it below that parent.
func (l Listed) Orphan() bool { return l.Parent != "" && l.Depth == 0 }

// Threaded orders infos (newest first) as listings show them: each session whose parent is in
// the list right below it, siblings in their order; the others keep theirs. A parent is named
// by its file (what pi writes) or its id; a chain that loops is cut where it closes.
func Threaded(infos []Info) []Listed {
	byRef := map[string]int{}
	for i, in := range infos {
		byRef[in.ID] = i
		if in.Path != "" {
			byRef[in.Path] = i
		}
	}
	parent := make([]int, len(infos))
	kids := map[int][]int{}
	for i, in := range infos {
		parent[i] = -1
		if p, ok := lookupParent(byRef, in.ParentSession); ok && p != i {
			parent[i] = p
			kids[p] = append(kids[p], i)
		}
	}
	out := make([]Listed, 0, len(infos))
	done := make([]bool, len(infos))
	var visit func(i, depth int)
	visit = func(i, depth int) {
		done[i] = true
		l := Listed{Info: infos[i], Depth: depth, Parent: parentRefID(infos[i].ParentSession)}
		if p := parent[i]; p >= 0 {
			l.Parent = infos[p].ID
		}
		out = append(out, l)
		for _, k := range kids[i] {
			if !done[k] {
				visit(k, depth+1)
			}
		}
	}
	for pass := 0; pass < 2; pass++ { // roots first; then what a loop left without one
		for i := range infos {
			if !done[i] && (parent[i] < 0 || pass == 1) {
				visit(i, 0)
			}
		}
	}
	return out
}

// lookupParent finds the session a parentSession names, by file or by id.
func lookupParent(byRef map[string]int, ref string) (int, bool) {
	if ref == "" {
		return 0, false
	}
	if i, ok := byRef[ref]; ok {
		return i, true
	}
	i, ok := byRef[parentRefID(ref)]
	return i, ok
}

// parentRefID is the id a parentSession names: a file's name is <timestamp>_<id>.jsonl, and
// a session in the SQLite store is <database>#<id>.
func parentRefID(ref string) string {
	if ref == "" {
		return ""
	}
	if i := strings.LastIndex(ref, "#"); i >= 0 {
		return ref[i+1:]
	}
	base := strings.TrimSuffix(filepath.Base(ref), ".jsonl")
	if i := strings.LastIndex(base, "_"); i >= 0 {
		return base[i+1:]
	}
	return base
}

// ThreadMark is what a listing shows before a session's title: an arrow, indented by depth,
// for a session below its parent; the parent's id for one whose parent is not listed.
func ThreadMark(l Listed) string {
	switch {
	case l.Depth > 0:
		return strings.Repeat("  ", l.Depth-1) + "↳ "
	case l.Orphan():
		return "↳ child of " + l.Parent[:min(len(l.Parent), 13)] + " · "
	}
	return ""
}

// WriteList prints sessions one per row: number, the shortest unique id prefix, the name or
// the user's first words (a session started from another below it, marked), messages, size
// and time; then how to continue one.
func WriteList(w io.Writer, infos []Info) {
	if len(infos) == 0 {
		fmt.Fprintln(w, "no sessions in this directory yet")
		return
	}
	listed := Threaded(infos)
	ids := make([]string, len(listed))
	for i, in := range listed {
		ids[i] = in.ID
	}
	short := UniquePrefixes(ids, 8)
	idWidth := 0
	for _, p := range short {
		idWidth = max(idWidth, len(p))
	}
	for i, in := range listed {
		title := in.Name
		if title == "" {
			title = Title(in.FirstPrompt, 60)
		}
		// Padded by display width, not bytes: an accent or a wide letter must not push the
		// columns after it out of line.
		title = runewidth.FillRight(runewidth.Truncate(ThreadMark(in)+title, 60, "…"), 60)
		fmt.Fprintf(w, "%2d  %-*s  %s  %4d msgs  %7s  %s\n", i+1, idWidth, short[i], title, in.MessageCount,
			humanSize(in.Size), in.Modified.Format("2006-01-02 15:04"))
	}
	fmt.Fprintln(w, "\ncontinue one with: pi --session <id prefix>")
}

// WriteUnreadable prints the files that look like sessions but whose header line is damaged,
// so that a listing does not pass over them without a word.
func WriteUnreadable(w io.Writer, files []Unreadable) {
	if len(files) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d session file(s) cannot be read (their first line is damaged):\n", len(files))
	for _, f := range files {
		fmt.Fprintf(w, "  %s  %s: %s\n", f.Modified.Format("2006-01-02 15:04"), f.Path, f.Why)
	}
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
