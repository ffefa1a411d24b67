package tools

import (
	"bytes"
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
}

// maxKeptBuffer is the largest read buffer a grep worker keeps for the next file.
const maxKeptBuffer = 16 << 20

// growBuffer returns a slice of size bytes, reusing *buf when it is large enough and keeping a
// new one in *buf only when it is not over keep bytes.
func growBuffer(buf *[]byte, size, keep int) []byte {
	if cap(*buf) >= size {
		return (*buf)[:size]
	}
	data := make([]byte, size, max(size, 64<<10))
	if size <= keep {
		*buf = data
	}
	return data
}

// file searches one file, returning at most limit+1 matches (one more than shown, so the caller
// knows there are more) with their context lines. Unreadable and binary files give nothing.
func (s *grepSearch) file(p, rel string, buf *[]byte, sc *searchScratch) []grepLine {
	data, err := readFileInto(p, buf, maxKeptBuffer)
	if err != nil {
		return nil
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil // binary
	}
	spans := s.m.lines(data, s.limit+1, sc)
	if len(spans) == 0 {
		return nil
	}
	return s.format(data, rel, spans)
}

// format turns matching lines into output lines with up to s.context lines around each,
// never repeating a line.
func (s *grepSearch) format(data []byte, rel string, spans []lineSpan) []grepLine {
	var out []grepLine
	text := func(a, b int) string {
		return strings.ToValidUTF8(strings.TrimSuffix(string(data[a:b]), "\r"), "\uFFFD")
	}
	lineNo, at, printed := 1, 0, 0 // the line starting at byte at is lineNo; printed is the last shown
	for i, sp := range spans {
		lineNo += bytes.Count(data[at:sp.start], []byte{'\n'})
		at = sp.start
		var before []grepLine
		st := sp.start
		for l := lineNo - 1; l >= max(lineNo-s.context, printed+1); l-- {
			ps := bytes.LastIndexByte(data[:st-1], '\n') + 1
			before = append(before, grepLine{rel, l, text(ps, st-1), false})
			st = ps
		}
		for k := len(before) - 1; k >= 0; k-- {
			out = append(out, before[k])
		}
		out = append(out, grepLine{rel, lineNo, text(sp.start, sp.end), true})
		printed = lineNo
		for e, k := sp.end, 0; k < s.context && e+1 < len(data); k++ {
			ns := e + 1
			if i+1 < len(spans) && ns >= spans[i+1].start {
				break
			}
			e = len(data)
			if j := bytes.IndexByte(data[ns:], '\n'); j >= 0 {
				e = ns + j
			}
			printed++
			out = append(out, grepLine{rel, printed, text(ns, e), false})
		}
	}
	return out
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
func (s *grepSearch) tree(parent context.Context, root, glob string) ([]grepLine, bool, error) {
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
					d.lines = s.file(j.path, j.rel, &buf, &sc)
				}
				results <- d
			}
		})
	}
	go func() { wg.Wait(); close(results) }()
	out, more := s.merge(results, cancel)
	if err := parent.Err(); err != nil {
		return nil, false, fmt.Errorf("search stopped: %w", err)
	}
	return out, more, nil
}

// fileHits is what searching the seq-th file of the walk found.
type fileHits struct {
	seq   int
	lines []grepLine
}

// merge collects per-file results in walk order until more than limit matches are known, then
// cancels the search. It drains results to the end so no worker blocks.
func (s *grepSearch) merge(results <-chan fileHits, cancel func()) ([]grepLine, bool) {
	pending := map[int][]grepLine{}
	var out []grepLine
	next, total, more := 0, 0, false
	for r := range results {
		if more {
			continue
		}
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
	return out, more
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
