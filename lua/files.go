package lua

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"pi/internal/proc"
	"pi/internal/safefile"
)

func (v *vm) exec(L *lua.LState) int {
	command := L.CheckString(1)
	opts := L.OptTable(2, L.NewTable())
	dir := v.path(optString(L, opts, "cwd"))
	stdin := optString(L, opts, "stdin")
	timeout := optSeconds(L, opts, "timeout")
	var env []string
	if v.r.opts.Environ != nil {
		env = v.r.opts.Environ()
	}
	return v.await(L, func(ctx context.Context) func(*lua.LState) []lua.LValue {
		// in a process group of its own: a timeout or an abort kills the children too
		res, err := proc.Capture(ctx, proc.CaptureSpec{Command: command, Dir: dir, Env: env, Stdin: stdin, Timeout: timeout,
			Confine: v.r.opts.Confine})
		if err != nil {
			return errorResult(fmt.Errorf("pi.exec: %w", err))
		}
		return func(L *lua.LState) []lua.LValue {
			t := L.NewTable()
			t.RawSetString("stdout", lua.LString(res.Stdout))
			t.RawSetString("stderr", lua.LString(res.Stderr))
			t.RawSetString("code", lua.LNumber(res.Code))
			t.RawSetString("killed", lua.LBool(res.Killed))
			return []lua.LValue{t}
		}
	})
}

// path resolves a script's path against the project directory.
func (v *vm) path(p string) string {
	if p == "" {
		return v.r.opts.Cwd
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(v.r.opts.Cwd, p)
	}
	return p
}

func (v *vm) readFile(L *lua.LState) int {
	data, err := readLimited(callContext(L, v.ctx), v.path(L.CheckString(1)), maxStringBytes)
	if err != nil {
		return v.ok(L, err)
	}
	L.Push(lua.LString(data))
	return 1
}

// callContext is the context of the call L runs, or else fallback.
func callContext(L *lua.LState, fallback context.Context) context.Context {
	if ctx := L.Context(); ctx != nil {
		return ctx
	}
	return fallback
}

// readLimited reads a regular file of at most max bytes: pi.read_file("/dev/zero") must not
// read until pi runs out of memory, nor pi.read_file of a pipe wait for its writer.
func readLimited(ctx context.Context, path string, max int64) ([]byte, error) {
	data, err := safefile.ReadFile(ctx, path, max)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("%s is larger than the %d MiB scripts may read at once", path, max>>20)
	}
	return data, err
}

func (v *vm) writeFile(L *lua.LState) int {
	p := v.path(L.CheckString(1))
	content := L.CheckString(2)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return v.ok(L, err)
	}
	return v.ok(L, os.WriteFile(p, []byte(content), 0o644))
}

func (v *vm) stat(L *lua.LState) int {
	fi, err := os.Stat(v.path(L.CheckString(1)))
	if err != nil {
		return v.ok(L, err)
	}
	t := L.NewTable()
	kind := "file"
	if fi.IsDir() {
		kind = "dir"
	}
	t.RawSetString("type", lua.LString(kind))
	t.RawSetString("size", lua.LNumber(fi.Size()))
	t.RawSetString("mtime", lua.LNumber(fi.ModTime().Unix()))
	L.Push(t)
	return 1
}

// glob(pattern, {cwd?, hidden?}) lists matching paths, sorted. "**" matches any number of
// directories; entries whose name starts with a dot are skipped by "**" unless hidden = true.
// A relative pattern gives paths relative to cwd (default pi.cwd()); an absolute one gives
// absolute paths.
func (v *vm) glob(L *lua.LState) int {
	pattern := L.CheckString(1)
	opts := L.OptTable(2, L.NewTable())
	base := v.path(optString(L, opts, "cwd"))
	matches, err := globFiles(base, pattern, lua.LVAsBool(opts.RawGetString("hidden")))
	if err != nil {
		return v.ok(L, fmt.Errorf("pi.glob %q: %w", pattern, err))
	}
	L.Push(v.toLua(matches))
	return 1
}

func globFiles(base, pattern string, hidden bool) ([]string, error) {
	abs := filepath.IsAbs(pattern)
	full := pattern
	if !abs {
		full = filepath.Join(base, pattern)
	}
	var matches []string
	if !strings.Contains(full, "**") {
		m, err := filepath.Glob(full)
		if err != nil {
			return nil, err
		}
		matches = m
	} else {
		m, err := walkGlob(full, hidden)
		if err != nil {
			return nil, err
		}
		matches = m
	}
	if !abs {
		for i, m := range matches {
			if rel, err := filepath.Rel(base, m); err == nil {
				matches[i] = rel
			}
		}
	}
	sort.Strings(matches)
	return matches, nil
}

// walkGlob walks from the longest literal prefix of pattern and matches each path segment by
// segment.
func walkGlob(pattern string, hidden bool) ([]string, error) {
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], "*?[") {
		i++
	}
	root := strings.Join(segs[:i], "/")
	if root == "" {
		root = "/"
	}
	rest := segs[i:]
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return fs.SkipAll // a missing root is no match, not an error
			}
			return nil
		}
		if p != root && !hidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if rel != "." && matchSegments(rest, strings.Split(filepath.ToSlash(rel), "/")) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(name); k++ {
				if matchSegments(pat[1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := filepath.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
