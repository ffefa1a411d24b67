package ollamatest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// CacheLoad is one request's use of the server's prompt cache, from the runner's debug log.
//
// It exists because Ollama's prompt_eval_count is the whole prompt's length (v0.17.4 counts the
// prompt before the cache is consulted), so it cannot show what a request re-processed. The
// runner's "loading cache slot" line can: Used tokens came from the cache, Remaining were
// evaluated.
type CacheLoad struct {
	Prompt    int // tokens in the prompt
	Used      int // taken from the cache
	Remaining int // evaluated for this request
}

// CacheLoads returns every cache load the server has logged so far, oldest first. Start runs the
// server with OLLAMA_DEBUG=1, which the log lines need.
func (s *Server) CacheLoads() ([]CacheLoad, error) {
	var loads []CacheLoad
	err := s.scanLog(`msg="loading cache slot"`, func(line string) error {
		l, err := parseCacheLoad(line)
		loads = append(loads, l)
		return err
	})
	return loads, err
}

// Prompts returns the rendered prompt of every completion the server has run so far, oldest
// first, exactly as the runner received it. The server logs prompts only at trace level, so it
// must be started with Start(t, "OLLAMA_DEBUG=2"); otherwise Prompts returns none.
func (s *Server) Prompts() ([]string, error) {
	var prompts []string
	err := s.scanLog(`level=TRACE source=server.go`, func(line string) error {
		_, quoted, ok := strings.Cut(line, ` msg="completion request" prompt=`)
		if !ok {
			return nil
		}
		q, err := strconv.QuotedPrefix(quoted)
		if err == nil {
			q, err = strconv.Unquote(q)
		}
		if err != nil {
			return fmt.Errorf("prompt in log line %.80q: %w", line, err)
		}
		prompts = append(prompts, q)
		return nil
	})
	return prompts, err
}

// scanLog calls each for every line of the server log that contains substr.
func (s *Server) scanLog(substr string, each func(line string) error) error {
	f, err := os.Open(s.LogPath)
	if err != nil {
		return fmt.Errorf("read ollama log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024) // trace lines hold whole prompts
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, substr) {
			if err := each(line); err != nil {
				return fmt.Errorf("%s: %w", s.LogPath, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", s.LogPath, err)
	}
	return nil
}

// parseCacheLoad reads the prompt=, used= and remaining= fields of one slog text line.
func parseCacheLoad(line string) (CacheLoad, error) {
	var l CacheLoad
	fields := map[string]*int{"prompt": &l.Prompt, "used": &l.Used, "remaining": &l.Remaining}
	found := 0
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		p := fields[k]
		if !ok || p == nil {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return l, fmt.Errorf("cache load line %q: %s: %w", line, k, err)
		}
		*p = n
		found++
	}
	if found != len(fields) {
		return l, fmt.Errorf("cache load line %q lacks prompt, used or remaining", line)
	}
	return l, nil
}

// Finished counts the requests to path ("/api/chat") the server has answered so far: its HTTP
// log writes one line per request once the answer has ended, streamed or not. A test waits on
// it for a request it cannot see end, such as a warm-up pi sends on its own.
func (s *Server) Finished(path string) (int, error) {
	n := 0
	err := s.scanLog(`[GIN]`, func(line string) error {
		if strings.Contains(line, "| POST ") && strings.HasSuffix(strings.TrimSpace(line), strconv.Quote(path)) {
			n++
		}
		return nil
	})
	return n, err
}

// RunnerStarts counts the model runners the server has started so far: a load, or a reload
// because a request asked for another context length.
func (s *Server) RunnerStarts() (int, error) {
	n := 0
	err := s.scanLog(`msg="starting runner"`, func(string) error { n++; return nil })
	return n, err
}
