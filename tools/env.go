package tools

import (
	"context"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"

	"pi/internal/proc"

	"golang.org/x/text/unicode/norm"
)

// DefaultBashTimeout bounds a bash call whose arguments name no timeout. pi has none, which
// lets a forgotten server or an interactive prompt stall an agent forever.
const DefaultBashTimeout = 10 * time.Minute

// DefaultNames are the tools active when the configuration names none, as in pi. A function,
// so that no caller can change the list for everyone.
func DefaultNames() []string { return []string{"read", shellToolName(), "edit", "write"} }

// AllNames are every built-in tool, in the order pi lists them.
func AllNames() []string {
	return []string{"read", "bash", "edit", "write", "grep", "find", "ls", "powershell"}
}

// Env is the state the built-in tools of one agent share: where they run, their limits, and
// what they remember between calls. Create one per agent with NewEnv; it is safe for
// concurrent use by the tools it made.
//
// What it remembers: the content each file had when read, write or edit last saw it, so that
// edit can refuse a file that changed on disk since (the stale-file guard: the model's
// oldText would rest on text that is gone), and a lock per path, so that edits and writes of
// one file run one after another even when the loop runs their calls in parallel.
type Env struct {
	// Cwd is the directory relative paths and bash commands start from. It must be absolute.
	Cwd string
	// BashTimeout applies when a bash call names no timeout; zero means DefaultBashTimeout.
	BashTimeout time.Duration
	// Shell runs bash commands as `Shell -c command`; empty means bash from PATH, else sh.
	Shell string
	// Environ is the environment shell commands get (pi's without the key variables); nil
	// means this process's.
	Environ func() []string
	// WriteNeedsRead makes write refuse to replace an existing file that read, write or edit
	// have not seen in this Env: the model would overwrite what it never looked at.
	WriteNeedsRead bool
	// ImagesAllowed reports whether the current model takes image input; nil means it does not.
	// It is a function because the user may switch models between calls.
	ImagesAllowed func() bool
	// Window is the current model's context window in tokens; results are sized to it (see
	// LimitsFor). Nil or 0 means pi's fixed limits.
	Window func() int
	// Spill is the folder bash output spills to past the limits. NewEnv makes one under
	// os.TempDir() (its folder is made on the first spill); Close removes it. Nil keeps no
	// file of the full output.
	Spill *proc.SpillDir
	// Confine, when set, confines every command the shell tools start (the OS sandbox).
	Confine proc.Confiner

	mu    sync.Mutex
	seed  maphash.Seed
	seen  map[string]fileStamp // absolute path → content last read or written
	locks map[string]*pathLock // absolute path → mutex of edits and writes in flight
}

// NewEnv returns an Env for cwd with the default limits.
func NewEnv(cwd string) (*Env, error) {
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("tools: working directory %q: %w", cwd, err)
	}
	return &Env{Cwd: abs, BashTimeout: DefaultBashTimeout, Spill: proc.NewSpillDir("")}, nil
}

// Close removes what the tools left on disk for the process's lifetime: the spilled bash
// output. Whoever made the Env calls it when the process ends.
func (e *Env) Close() error {
	if e.Spill == nil {
		return nil
	}
	return e.Spill.Close()
}

// Builtins returns every built-in tool this machine offers, bound to env, by name.
func Builtins(env *Env) map[string]Tool {
	m := make(map[string]Tool, len(AllNames()))
	for _, name := range Offered() { // powershell only where it is installed
		m[name], _ = New(name, env)
	}
	return m
}

// New returns the built-in tool called name, bound to env.
func New(name string, env *Env) (Tool, error) {
	switch name {
	case "read":
		return newRead(env), nil
	case "bash":
		return newBash(env), nil
	case "edit":
		return newEdit(env), nil
	case "write":
		return newWrite(env), nil
	case "grep":
		return newGrep(env), nil
	case "find":
		return newFind(env), nil
	case "ls":
		return newLs(env), nil
	case "powershell":
		return newPowerShell(env)
	}
	return nil, fmt.Errorf("tools: no built-in tool %q (have %s)", name, strings.Join(AllNames(), ", "))
}

func (e *Env) bashTimeout() time.Duration {
	if e.BashTimeout > 0 {
		return e.BashTimeout
	}
	return DefaultBashTimeout
}

func (e *Env) imagesAllowed() bool { return e.ImagesAllowed != nil && e.ImagesAllowed() }

// Resolve turns a path as a model writes it into an absolute, clean path: relative to Cwd,
// `~` expanded, a leading `@` (from pi's file mentions) dropped. When that names nothing, the
// spellings models get wrong are tried: plain spaces for Unicode ones and back, the narrow
// no-break space macOS puts before AM/PM in screenshot names, a curly apostrophe, and the other
// Unicode normal form (see resolveSpelling).
func (e *Env) Resolve(p string) (string, error) {
	p = strings.TrimPrefix(p, "@")
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand %q: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Cwd, p)
	}
	return resolveSpelling(filepath.Clean(p)), nil
}

// screenshotTime puts the narrow no-break space macOS writes before a clock suffix in a
// screenshot name in place of a plain space, in either case ("AM" or "am", by the locale).
func screenshotTime(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] == ' ' && i+3 < len(name) && name[i+3] == '.' &&
			(strings.EqualFold(name[i+1:i+3], "am") || strings.EqualFold(name[i+1:i+3], "pm")) {
			b.WriteString("\u202f")
			continue
		}
		b.WriteByte(name[i])
	}
	return b.String()
}

// resolveSpelling returns p, or when nothing is there, the first of the spellings models and
// people get wrong that names something: plain spaces for Unicode ones, the narrow no-break space
// macOS puts before AM/PM, a curly apostrophe, and the other Unicode normal form (macOS file
// systems and archives made there store names decomposed).
func resolveSpelling(p string) string {
	if exists(p) {
		return p
	}
	plain := strings.Map(func(r rune) rune {
		if r != ' ' && unicode.Is(unicode.Zs, r) {
			return ' '
		}
		return r
	}, p)
	screenshot := screenshotTime(plain)
	curly := strings.ReplaceAll(p, "'", "\u2019")
	for _, alt := range []string{plain, screenshot, curly} {
		if alt != p && exists(alt) {
			return alt
		}
	}
	for _, base := range []string{p, screenshot, curly} {
		for _, alt := range []string{norm.NFD.String(base), norm.NFC.String(base)} {
			if alt != p && exists(alt) {
				return alt
			}
		}
	}
	return p
}

// fileStamp identifies a file's content as the agent last saw it.
type fileStamp struct {
	hash uint64
	size int64
}

func (e *Env) stampOf(content []byte) fileStamp {
	e.mu.Lock()
	if e.seen == nil {
		e.seed = maphash.MakeSeed()
		e.seen = map[string]fileStamp{}
	}
	seed := e.seed
	e.mu.Unlock()
	return fileStamp{hash: maphash.Bytes(seed, content), size: int64(len(content))}
}

// remember records content as what the agent knows of path.
func (e *Env) remember(path string, content []byte) {
	s := e.stampOf(content)
	e.mu.Lock()
	e.seen[path] = s
	e.mu.Unlock()
}

// seenPath reports whether read, write or edit saw path in this Env.
func (e *Env) seenPath(path string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.seen[path]
	return ok
}

// changedSince reports whether content differs from what the agent last read or wrote at
// path. A path the agent never saw has not changed as far as the guard knows.
func (e *Env) changedSince(path string, content []byte) bool {
	s := e.stampOf(content)
	e.mu.Lock()
	defer e.mu.Unlock()
	old, ok := e.seen[path]
	return ok && old != s
}

type pathLock struct {
	ch   chan struct{} // a one-slot semaphore, so waiting can honour ctx
	refs int
}

// lockPath serialises mutations of one file: edits and writes of the same path that the loop
// runs in parallel would otherwise lose each other's changes.
func (e *Env) lockPath(ctx context.Context, path string) (unlock func(), err error) {
	e.mu.Lock()
	if e.locks == nil {
		e.locks = map[string]*pathLock{}
	}
	l := e.locks[path]
	if l == nil {
		l = &pathLock{ch: make(chan struct{}, 1)}
		e.locks[path] = l
	}
	l.refs++
	e.mu.Unlock()
	release := func() {
		e.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(e.locks, path)
		}
		e.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, fmt.Errorf("waiting for another change to %s: %w", path, ctx.Err())
	}
}

// lockKey is the path a lock and the stale-file guard use: symlinks resolved where they exist,
// so two names of one file share a lock; a file not yet there is named in its resolved folder.
func lockKey(abs string) string {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// exists reports whether something (a file, a directory, a dangling link) is at p.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
