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
	f, err := os.Open(s.LogPath)
	if err != nil {
		return nil, fmt.Errorf("read ollama log: %w", err)
	}
	defer f.Close()
	var loads []CacheLoad
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024) // debug lines can hold long prompts
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `msg="loading cache slot"`) {
			continue
		}
		l, err := parseCacheLoad(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.LogPath, err)
		}
		loads = append(loads, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.LogPath, err)
	}
	return loads, nil
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
