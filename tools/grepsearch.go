package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"pi/internal/gitwalk"
)

// grepLine is one output line: a match or a context line.
type grepLine struct {
	path  string
	line  int
	text  string
	match bool
}

type grepSearch struct {
	m       *matcher
	context int
	limit   int
	block   int // the bytes of a file held at a time; zero means grepBlock
}

// takeMatches keeps lines up to the limit-th match and reports whether more matches followed.
func takeMatches(lines []grepLine, limit int) ([]grepLine, bool) {
	n := 0
	for i, l := range lines {
		if l.match {
			if n == limit {
				return lines[:i], true
			}
			n++
		}
	}
	return lines, false
}

// tree searches every file below root in parallel. Results are put back in walk order, so the
// output is the same from run to run, and the walk stops once the first limit matches are known.
// It reports whether more matches followed and whether a line was searched in pieces.
func (s *grepSearch) tree(parent context.Context, root, glob string) (lines []grepLine, more, piecewise bool, err error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	type job struct {
		seq       int
		path, rel string
	}
	jobs, results := make(chan job, 256), make(chan fileHits, 256)
	go func() {
		defer close(jobs)
		seq := 0
		gitwalk.Walk(ctx, root, func(rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() || !globOK(glob, rel) {
				return nil
			}
			select {
			case jobs <- job{seq, filepath.Join(root, filepath.FromSlash(rel)), rel}:
				seq++
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			var buf []byte
			var sc searchScratch
			for j := range jobs {
				d := fileHits{seq: j.seq}
				if ctx.Err() == nil {
					d.lines, d.piecewise = s.file(j.path, j.rel, &buf, &sc)
				}
				results <- d
			}
		})
	}
	go func() { wg.Wait(); close(results) }()
	out, more, piecewise := s.merge(results, cancel)
	if err := parent.Err(); err != nil {
		return nil, false, false, fmt.Errorf("search stopped: %w", err)
	}
	return out, more, piecewise, nil
}

// fileHits is what searching the seq-th file of the walk found.
type fileHits struct {
	seq       int
	lines     []grepLine
	piecewise bool
}

// merge collects per-file results in walk order until more than limit matches are known, then
// cancels the search. It drains results to the end so no worker blocks.
func (s *grepSearch) merge(results <-chan fileHits, cancel func()) (out []grepLine, more, piecewise bool) {
	pending := map[int][]grepLine{}
	next, total := 0, 0
	for r := range results {
		if more {
			continue
		}
		piecewise = piecewise || r.piecewise
		pending[r.seq] = r.lines
		for !more {
			lines, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			lines, more = takeMatches(lines, s.limit-total)
			out = append(out, lines...)
			for _, l := range lines {
				if l.match {
					total++
				}
			}
		}
		if more {
			cancel()
		}
	}
	return out, more, piecewise
}

func globOK(glob, rel string) bool {
	if glob == "" {
		return true
	}
	negate := strings.HasPrefix(glob, "!")
	g := strings.TrimPrefix(glob, "!")
	var ok bool
	if strings.Contains(g, "/") {
		ok = gitwalk.GlobMatch(g, rel) || gitwalk.GlobMatch("**/"+g, rel)
	} else {
		ok = gitwalk.GlobMatch(g, path.Base(rel))
	}
	return ok != negate
}
