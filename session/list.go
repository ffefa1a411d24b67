package session

// list.go prints and gathers session lists across folders (pi sessions, the resume picker).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"pi/provider"
)

// ListIn lists the sessions of several folders together, newest first; a folder that
// does not exist holds none.
func ListIn(ctx context.Context, dirs ...string) ([]Info, error) {
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

// PrintList prints the sessions of several folders, newest first, as `pi sessions` shows them.
func PrintList(ctx context.Context, w io.Writer, dirs ...string) error {
	infos, err := ListIn(ctx, dirs...)
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		fmt.Fprintln(w, "no sessions in this directory yet")
		return nil
	}
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	short := UniquePrefixes(ids, 8)
	for i, in := range infos {
		title := in.Name
		if title == "" {
			title = provider.OneLine(WithoutContextBlock(in.FirstPrompt), 60)
		}
		fmt.Fprintf(w, "%2d  %s  %-60s  %4d msgs  %7s  %s\n", i+1, short[i], title, in.MessageCount,
			humanSize(in.Size), in.Modified.Format("2006-01-02 15:04"))
	}
	fmt.Fprintln(w, "\ncontinue one with: pi --session <id prefix>")
	return nil
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

// AgentDir is where the TypeScript pi keeps its files ($PI_CODING_AGENT_DIR, else
// ~/.pi/agent): its sessions are in the same format, so they can be listed and continued.
func AgentDir() string {
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".pi", "agent")
}
