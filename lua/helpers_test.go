package lua

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// env is a throwaway $PI_HOME and project directory.
type env struct {
	home, cwd string
	opts      Options
	mu        sync.Mutex
	notes     []Notice
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{home: filepath.Join(root, "home"), cwd: filepath.Join(root, "project")}
	for _, d := range []string{e.home, e.cwd, filepath.Join(e.cwd, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", root) // ~/.agents/skills must not reach the real home
	// The checkpoints script adds commands and handlers that most tests do not expect; the
	// tests of checkpoints turn it back on.
	e.opts = Options{PiHome: e.home, Cwd: e.cwd, Trust: true, Disabled: []string{"checkpoints"}}
	e.opts.Host.Notify = func(msg, level string) {
		e.mu.Lock()
		e.notes = append(e.notes, Notice{Level: level, Message: msg})
		e.mu.Unlock()
	}
	return e
}

func (e *env) write(t testing.TB, rel, content string) string {
	t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.cwd, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// start writes src as the project's .pi/init.lua and starts a runtime.
func (e *env) start(t testing.TB, src string) *Runtime {
	t.Helper()
	if src != "" {
		e.write(t, ".pi/init.lua", src)
	}
	r, err := New(context.Background(), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if err := r.Ready(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return r
}

func writeFile(tb testing.TB, p, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func (e *env) notices() []Notice {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Notice(nil), e.notes...)
}

// noticeContaining returns the first notice whose message contains s.
func (e *env) noticeContaining(s string) (Notice, bool) {
	for _, n := range e.notices() {
		if strings.Contains(n.Message, s) {
			return n, true
		}
	}
	return Notice{}, false
}

func (e *env) noErrors(t *testing.T) {
	t.Helper()
	for _, n := range e.notices() {
		if n.Level == "error" {
			t.Errorf("unexpected error notice: %s", n.Message)
		}
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
