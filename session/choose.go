package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Choice is the session a run asks for on the command line.
type Choice struct {
	Dir      string // this directory's sessions ("" is Dir(Home, Cwd))
	Home     string // $PI_HOME
	Cwd      string
	InMemory bool   // --no-session
	Fork     string // --fork: a session to fork
	Ref      string // --session: a session to open, or a new file's path
	Continue bool   // -c: the newest session of Dir, else a new one
	Parent   string // the parent session of a new one (a subagent's)
	// Store keeps the sessions when set ([session] store = "sqlite"); nil is the JSONL files
	// as the fields above place them.
	Store Store
}

// Choose opens the session c asks for. A new session touches the disk only once the first
// reply arrives. A Ref this pi does not know may be one of the TypeScript pi's sessions.
func Choose(ctx context.Context, c Choice) (*Session, error) {
	if c.Store != nil {
		return chooseIn(ctx, c.Store, c)
	}
	dir := c.Dir
	if dir == "" {
		dir = Dir(c.Home, c.Cwd)
	}
	root := SessionsRoot(c.Home)
	switch {
	case c.InMemory:
		return InMemory(c.Cwd), nil
	case c.Fork != "":
		src, err := Resolve(c.Fork, dir, root)
		if err != nil {
			return nil, fmt.Errorf("--fork: %w", err)
		}
		return ForkFile(ctx, src, dir, c.Cwd)
	case c.Ref != "":
		path, err := Resolve(c.Ref, dir, root)
		if errors.Is(err, os.ErrNotExist) && strings.ContainsAny(c.Ref, `/\`) {
			return createAt(c.Ref, c.Cwd, c.Parent)
		}
		if err != nil {
			agent := PiAgentDir()
			if found, err2 := Resolve(c.Ref, Dir(agent, c.Cwd), SessionsRoot(agent)); err2 == nil {
				path, err = found, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("--session: %w", err)
		}
		return Open(ctx, path)
	case c.Continue:
		return continueNewest(ctx, dir, c)
	}
	return CreateChild(dir, c.Cwd, c.Parent), nil
}

// continueNewest is -c: the newest readable session of dir, else a new one, with a warning
// for each newer file passed over because its header line is damaged.
func continueNewest(ctx context.Context, dir string, c Choice) (*Session, error) {
	path, err := FindNewest(dir)
	if err != nil {
		return nil, fmt.Errorf("-c: %w", err)
	}
	s := CreateChild(dir, c.Cwd, c.Parent)
	var newerThan time.Time
	if path != "" {
		if s, err = Open(ctx, path); err != nil {
			return nil, err
		}
		if st, err := os.Stat(path); err == nil {
			newerThan = st.ModTime()
		}
	}
	damaged, _ := ListUnreadable(dir)
	for _, d := range damaged {
		if d.Modified.After(newerThan) {
			s.warn(Warning{File: d.Path, Reason: "passed over, a newer session whose first line is damaged: " + d.Why})
		}
	}
	return s, nil
}

// createAt starts a session in a new file at the user's path, as pi does, but only in a folder
// that exists: a mistyped path must not quietly start a new conversation somewhere.
func createAt(path, cwd, parent string) (*Session, error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--session %s: no such session, and there is no folder %s to start one in", path, dir)
	}
	return newSession(newHeader(time.Now(), cwd, parent), path, true), nil
}
