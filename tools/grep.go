package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const defaultGrepLimit = 100

// GrepDetails is the details of a grep result.
type GrepDetails struct {
	Truncation        *Truncation `json:"truncation,omitempty"`
	MatchLimitReached int         `json:"matchLimitReached,omitempty"`
	LinesTruncated    bool        `json:"linesTruncated,omitempty"`
	LinesInPieces     bool        `json:"linesInPieces,omitempty"`
}

func newGrep(env *Env) Tool {
	return &Func{Spec: Info{
		Name: "grep", ReadOnly: true,
		Description: fmt.Sprintf("Search file contents with a regular expression (Go RE2 syntax). Respects .gitignore, "+
			"includes hidden files, skips binary files. Prints path:line: text; stops at limit matches (default %d).",
			defaultGrepLimit),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"pattern":{"type":"string","description":"Regular expression, or plain text with literal"},` +
			`"path":{"type":"string","description":"Directory or file to search (default: working directory)"},` +
			`"glob":{"type":"string","description":"Only files matching this glob, e.g. *.go or **/*.ts"},` +
			`"ignoreCase":{"type":"boolean"},` +
			`"literal":{"type":"boolean","description":"Treat pattern as plain text"},` +
			`"context":{"type":"integer","minimum":0,"description":"Lines to show around each match"},` +
			`"limit":{"type":"integer","minimum":1,"description":"Most matches to return (default 100)"}},` +
			`"required":["pattern"]}`),
		Guidelines: []string{"Use grep instead of bash grep or rg."},
	}, Run: func(ctx context.Context, _ string, args map[string]any, _ func(Result)) (Result, error) {
		return runGrep(ctx, env, args)
	}}
}

type grepArgs struct {
	name, root string // the path as given and resolved
	glob       string
	search     grepSearch
}

func parseGrepArgs(env *Env, args map[string]any) (*grepArgs, error) {
	pattern, ok, err := argString(args, "pattern")
	if err != nil {
		return nil, err
	}
	if !ok || pattern == "" {
		return nil, fmt.Errorf(`argument "pattern" is required`)
	}
	g := &grepArgs{}
	if g.name, g.root, err = argPath(env, args, "path", false); err != nil {
		return nil, err
	}
	if g.glob, _, err = argString(args, "glob"); err != nil {
		return nil, err
	}
	ignoreCase, err1 := argBool(args, "ignoreCase")
	literal, err2 := argBool(args, "literal")
	ctxLines, _, err3 := argInt(args, "context")
	limit, hasLimit, err4 := argInt(args, "limit")
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return nil, err
		}
	}
	if !hasLimit || limit < 1 {
		limit = defaultGrepLimit
	}
	m, err := newMatcher(pattern, literal, ignoreCase)
	if err != nil {
		return nil, err
	}
	g.search = grepSearch{m: m, context: max(ctxLines, 0), limit: limit}
	return g, nil
}

func runGrep(ctx context.Context, env *Env, args map[string]any) (Result, error) {
	g, err := parseGrepArgs(env, args)
	if err != nil {
		return Result{}, err
	}
	fi, err := os.Stat(g.root)
	if err != nil {
		return Result{}, fmt.Errorf("cannot search %s: %w", displayName(g.name), err)
	}
	var hits []grepLine
	var more, piecewise bool
	if fi.IsDir() {
		hits, more, piecewise, err = g.search.tree(ctx, g.root, g.glob)
	} else {
		var buf []byte
		hits, piecewise = g.search.file(g.root, filepath.Base(g.root), &buf, &searchScratch{})
		hits, more = takeMatches(hits, g.search.limit)
	}
	if err != nil {
		return Result{}, err
	}
	return grepResult(hits, grepNotes{more: more, piecewise: piecewise, limits: env.Limits()}, g.search.limit), nil
}

func displayName(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// grepNotes is what grepResult tells beside the lines found.
type grepNotes struct {
	more      bool // more matches followed the limit-th
	piecewise bool // a line longer than grepBlock was searched in pieces
	limits    Limits
}

// grepResult formats the lines found, with notices for what was left out.
func grepResult(hits []grepLine, n grepNotes, limit int) Result {
	if len(hits) == 0 {
		return TextResult("No matches found")
	}
	var b strings.Builder
	cut := false
	for _, h := range hits {
		text, c := cutLine(h.text, GrepMaxLineLength)
		cut = cut || c
		sep := "-"
		if h.match {
			sep = ":"
		}
		fmt.Fprintf(&b, "%s%s%d%s %s\n", h.path, sep, h.line, sep, text)
	}
	if n.limits.MaxBytes <= 0 {
		n.limits = DefaultLimits()
	}
	out, tr := TruncateHead(strings.TrimSuffix(b.String(), "\n"), int(^uint(0)>>1), n.limits.MaxBytes)
	var notes []string
	var d GrepDetails
	if n.more {
		d.MatchLimitReached = limit
		notes = append(notes, fmt.Sprintf("Stopped at %d matches; pass limit=%d for more, or narrow the pattern.", limit, limit*2))
	}
	if tr.Truncated {
		d.Truncation = &tr
		notes = append(notes, fmt.Sprintf("Output cut at the %s limit.", FormatSize(n.limits.MaxBytes)))
	}
	if cut {
		d.LinesTruncated = true
		notes = append(notes, fmt.Sprintf("Lines longer than %d characters were cut; read the file for all of them.", GrepMaxLineLength))
	}
	if n.piecewise {
		d.LinesInPieces = true
		notes = append(notes, fmt.Sprintf("Lines longer than %s were searched in pieces: a match across two may be missed.", FormatSize(grepBlock)))
	}
	res := TextResult(out)
	if len(notes) > 0 {
		res = TextResult(out + "\n\n[" + strings.Join(notes, " ") + "]")
		res.Details = d
	}
	return res
}

// cutLine shortens s to n characters, marking the cut.
func cutLine(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "... [truncated]", true
		}
		i++
	}
	return s, false
}
