package live

// responselog.go is [log] responses: one JSON line per model response, appended to a file, so
// that a user can add up what a day of work cost without reading every session.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"pi/agent"
	"pi/provider"
)

// responseLine is one line of the responses log. Cost is left out when the model has no
// price in pi.toml (a local model): 0 would claim it was free.
type responseLine struct {
	Time         string   `json:"time"`
	Session      string   `json:"session"`
	Model        string   `json:"model"`
	InputTokens  int      `json:"input_tokens"`
	OutputTokens int      `json:"output_tokens"`
	CacheRead    int      `json:"cache_read"`
	CacheWrite   int      `json:"cache_write"`
	Cost         *float64 `json:"cost,omitempty"`
}

// responseLog appends a line to path for every assistant message the agent finishes. A file
// that cannot be written is said once on stderr; the session goes on.
type responseLog struct {
	path    string
	session func() string
	stderr  io.Writer
	mu      sync.Mutex
	warned  bool
}

func newResponseLog(path, piHome string, session func() string, stderr io.Writer) *responseLog {
	if !filepath.IsAbs(path) {
		path = filepath.Join(piHome, path)
	}
	return &responseLog{path: path, session: session, stderr: stderr}
}

func (l *responseLog) onEvent(_ context.Context, ev agent.Event) {
	if ev.Type != agent.EvMessageEnd || ev.Message == nil || ev.Message.Role != provider.RoleAssistant {
		return
	}
	if err := l.write(ev.Message, time.Now()); err != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.warned {
			l.warned = true
			fmt.Fprintln(l.stderr, "pi: warning: [log] responses:", err)
		}
	}
}

func (l *responseLog) write(m *provider.Message, now time.Time) error {
	line := responseLine{Time: now.UTC().Format(time.RFC3339), Session: l.session(), Model: m.Provider + "/" + m.Model}
	if u := m.Usage; u != nil {
		line.InputTokens, line.OutputTokens, line.CacheRead, line.CacheWrite = u.Input, u.Output, u.CacheRead, u.CacheWrite
		if u.Cost != (provider.Cost{}) {
			cost := u.Cost.Total
			line.Cost = &cost
		}
	}
	data, err := json.Marshal(line)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("appending to %s: %w", l.path, err)
	}
	return nil
}
