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

// WriteList prints sessions one per row: number, the shortest unique id prefix, the name or
// the user's first words, messages, size and time; then how to continue one.
func WriteList(w io.Writer, infos []Info) {
	if len(infos) == 0 {
		fmt.Fprintln(w, "no sessions in this directory yet")
		return
	}
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	short := UniquePrefixes(ids, 8)
	idWidth := 0
	for _, p := range short {
		idWidth = max(idWidth, len(p))
	}
	for i, in := range infos {
		title := in.Name
		if title == "" {
			title = Title(in.FirstPrompt, 60)
		}
		// Padded by display width, not bytes: an accent or a wide letter must not push the
		// columns after it out of line.
		title = runewidth.FillRight(runewidth.Truncate(title, 60, "…"), 60)
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
