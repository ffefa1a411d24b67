package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"pi/internal/gitwalk"
)

const defaultFindLimit = 1000

// ListDetails is the details of find and ls results.
type ListDetails struct {
	Truncation         *Truncation `json:"truncation,omitempty"`
	ResultLimitReached int         `json:"resultLimitReached,omitempty"`
}

func newFind(env *Env) Tool {
	return &Func{Spec: Info{
		Name: "find", ReadOnly: true,
		Description: fmt.Sprintf("Find files and directories by glob, e.g. *.go, **/test_*.py or src/**/*.ts. "+
			"Respects .gitignore; directories end in /. At most limit results (default %d).", defaultFindLimit),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"pattern":{"type":"string","description":"Glob; without a slash it matches file names"},` +
			`"path":{"type":"string","description":"Directory to search (default: working directory)"},` +
			`"limit":{"type":"integer","minimum":1,"description":"Most results (default 1000)"}},` +
			`"required":["pattern"]}`),
		Guidelines: []string{"Use find instead of bash find or ls -R."},
	}, Run: func(ctx context.Context, _ string, args map[string]any, _ func(Result)) (Result, error) {
		return runFind(ctx, env, args)
	}}
}

type findArgs struct {
	pattern, name, root string
	limit               int
}

func parseFindArgs(env *Env, args map[string]any) (findArgs, error) {
	var a findArgs
	pattern, ok, err := argString(args, "pattern")
	if err != nil {
		return a, err
	}
	if !ok || pattern == "" {
		return a, fmt.Errorf(`argument "pattern" is required`)
	}
	if err := checkGlob(pattern); err != nil {
		return a, err
	}
	a.pattern = pattern
	if a.name, a.root, err = argPath(env, args, "path", false); err != nil {
		return a, err
	}
	limit, hasLimit, err := argInt(args, "limit")
	if err != nil {
		return a, err
	}
	if a.limit = limit; !hasLimit || limit < 1 {
		a.limit = defaultFindLimit
	}
	return a, nil
}

// checkGlob reports a pattern that matches nothing because it is malformed (an unclosed `[`, a
// trailing backslash): "No files match" would let the model conclude the file is not there.
func checkGlob(pattern string) error {
	for _, seg := range strings.Split(pattern, "/") {
		if _, err := path.Match(strings.ReplaceAll(seg, "**", "*"), ""); err != nil {
			return fmt.Errorf("invalid glob pattern %q: %w (close each [ with ], or match a literal [ with [[])", pattern, err)
		}
	}
	return nil
}

func runFind(ctx context.Context, env *Env, args map[string]any) (Result, error) {
	a, err := parseFindArgs(env, args)
	if err != nil {
		return Result{}, err
	}
	pattern, root, limit := a.pattern, a.root, a.limit
	if fi, err := os.Stat(root); err != nil {
		return Result{}, fmt.Errorf("cannot search %s: %w", displayName(a.name), err)
	} else if !fi.IsDir() {
		return Result{}, fmt.Errorf("%s is not a directory", displayName(a.name))
	}
	var found []string
	more := false
	full := strings.Contains(pattern, "/")
	pattern = strings.TrimPrefix(pattern, "/")
	err = gitwalk.Walk(ctx, root, func(rel string, d fs.DirEntry) error {
		target := path.Base(rel)
		if full {
			target = rel
		}
		if !gitwalk.GlobMatch(pattern, target) && !(full && gitwalk.GlobMatch("**/"+pattern, rel)) {
			return nil
		}
		if len(found) == limit {
			more = true
			return gitwalk.ErrStop
		}
		if d.IsDir() {
			rel += "/"
		}
		found = append(found, rel)
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("find stopped: %w", err)
	}
	if len(found) == 0 {
		return TextResult("No files match the pattern"), nil
	}
	return listResult(found, more, limit, "results", env.Limits()), nil
}

// listResult joins paths within the byte limit, with notices for what was left out.
func listResult(items []string, more bool, limit int, what string, l Limits) Result {
	out, tr := TruncateHead(strings.Join(items, "\n"), int(^uint(0)>>1), l.MaxBytes)
	var notes []string
	var d ListDetails
	if more {
		d.ResultLimitReached = limit
		notes = append(notes, fmt.Sprintf("Stopped at %d %s; pass limit=%d for more.", limit, what, limit*2))
	}
	if tr.Truncated {
		d.Truncation = &tr
		notes = append(notes, fmt.Sprintf("Output cut at the %s limit.", FormatSize(l.MaxBytes)))
	}
	if len(notes) == 0 {
		return TextResult(out)
	}
	res := TextResult(out + "\n\n[" + strings.Join(notes, " ") + "]")
	res.Details = d
	return res
}
