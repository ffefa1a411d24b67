package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const defaultLsLimit = 500

func newLs(env *Env) Tool {
	return &Func{Spec: Info{
		Name: "ls", ReadOnly: true,
		Description: fmt.Sprintf("List a directory, dotfiles included, sorted by name; directories end in /. "+
			"At most limit entries (default %d).", defaultLsLimit),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"Directory (default: working directory)"},` +
			`"limit":{"type":"integer","minimum":1,"description":"Most entries (default 500)"}}}`),
	}, Run: func(ctx context.Context, _ string, args map[string]any, _ func(Result)) (Result, error) {
		return runLs(env, args)
	}}
}

func runLs(env *Env, args map[string]any) (Result, error) {
	name, dir, err := argPath(env, args, "path", false)
	if err != nil {
		return Result{}, err
	}
	limit, hasLimit, err := argInt(args, "limit")
	if err != nil {
		return Result{}, err
	}
	if !hasLimit || limit < 1 {
		limit = defaultLsLimit
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Result{}, fmt.Errorf("cannot list %s: %w", displayName(name), err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.IsDir() { // follows symlinks
			n += "/"
		}
		names = append(names, n)
	}
	sort.SliceStable(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
	if len(names) == 0 {
		return TextResult("(empty directory)"), nil
	}
	more := len(names) > limit
	if more {
		names = names[:limit]
	}
	return listResult(names, more, limit, "entries", env.Limits()), nil
}
