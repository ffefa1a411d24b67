package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/internal/testwait"
)

// waitModal waits until the App shows a question (ask runs on another goroutine).
func waitModal(t *testing.T, app *App) {
	t.Helper()
	testwait.Until(t, "a question shown", func() bool {
		app.mu.Lock()
		defer app.mu.Unlock()
		return app.modal != nil
	})
}

func TestModals(t *testing.T) {
	cases := []struct {
		name string
		ask  func(app *App) (string, error)
		keys func(app *App)
		want string
		err  error
	}{
		{"select filters by typing", func(app *App) (string, error) {
			i, err := app.Select(context.Background(), "Model", []string{"ollama/qwen3:8b", "ollama/llama3.2", "openai/gpt-4o"})
			return []string{"qwen", "llama", "gpt"}[max(i, 0)], err
		}, func(app *App) { typeText(app, "lla"); app.HandleEvent(key(tcell.KeyEnter, 0, 0)) }, "llama", nil},
		{"select moves", func(app *App) (string, error) {
			i, err := app.Select(context.Background(), "Pick", []string{"a", "b", "c"})
			return []string{"a", "b", "c"}[max(i, 0)], err
		}, func(app *App) {
			app.HandleEvent(key(tcell.KeyDown, 0, 0))
			app.HandleEvent(key(tcell.KeyDown, 0, 0))
			app.HandleEvent(key(tcell.KeyEnter, 0, 0))
		}, "c", nil},
		{"select starts on the given option", func(app *App) (string, error) {
			i, err := app.SelectFrom(context.Background(), "Pick", []string{"a", "b", "c", "d"}, 2)
			return []string{"a", "b", "c", "d"}[max(i, 0)], err
		}, func(app *App) {
			app.HandleEvent(key(tcell.KeyDown, 0, 0))
			app.HandleEvent(key(tcell.KeyEnter, 0, 0))
		}, "d", nil},
		{"select jumps home and to the end", func(app *App) (string, error) {
			i, err := app.SelectFrom(context.Background(), "Pick", []string{"a", "b", "c", "d"}, 2)
			return []string{"a", "b", "c", "d"}[max(i, 0)], err
		}, func(app *App) {
			app.HandleEvent(key(tcell.KeyHome, 0, 0))
			app.HandleEvent(key(tcell.KeyDown, 0, 0))
			app.HandleEvent(key(tcell.KeyEnter, 0, 0))
		}, "b", nil},
		{"confirm yes", func(app *App) (string, error) {
			ok, err := app.Confirm(context.Background(), "Trust?", "Run .pi/init.lua from this project?")
			if ok {
				return "yes", err
			}
			return "no", err
		}, func(app *App) { typeText(app, "y") }, "yes", nil},
		{"input", func(app *App) (string, error) { return app.Input(context.Background(), "Name") },
			func(app *App) { typeText(app, "my session"); app.HandleEvent(key(tcell.KeyEnter, 0, 0)) }, "my session", nil},
		{"escape cancels", func(app *App) (string, error) { return app.Input(context.Background(), "Name") },
			func(app *App) { app.HandleEvent(key(tcell.KeyEscape, 0, 0)) }, "", ErrCancelled},
		{"editor takes several lines", func(app *App) (string, error) {
			text, _, err := app.Editor(context.Background(), "Plan", "step 1")
			return text, err
		}, func(app *App) {
			app.HandleEvent(key(tcell.KeyEnter, 0, tcell.ModShift))
			typeText(app, "step 2")
			app.HandleEvent(key(tcell.KeyCtrlJ, 0, tcell.ModCtrl))
			typeText(app, "step 3")
			app.HandleEvent(key(tcell.KeyEnter, 0, 0))
		}, "step 1\nstep 2\nstep 3", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, term, _ := newTestApp(t, 60, 20, Callbacks{})
			type res struct {
				s   string
				err error
			}
			done := make(chan res, 1)
			go func() { s, err := c.ask(app); done <- res{s, err} }()
			waitModal(t, app)
			app.Flush()
			if !strings.Contains(strings.Join(term.all(), "\n"), "esc cancel") {
				t.Errorf("question not on screen:\n%s", strings.Join(term.all(), "\n"))
			}
			c.keys(app)
			r := <-done
			if r.s != c.want || !errors.Is(r.err, c.err) {
				t.Errorf("got %q, %v; want %q, %v", r.s, r.err, c.want, c.err)
			}
		})
	}
}
