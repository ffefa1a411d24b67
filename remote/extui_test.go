package remote

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"pi/extui"
	"pi/internal/testwait"
)

// uiAttached is a view attached and following its session's events, with the Asker the
// server gave the session's runtime.
func uiAttached(t *testing.T) (*kit, *attached, *extui.Asker) {
	k := startKit(t, nil)
	a := attach(t, k)
	go a.v.follow()
	testwait.Until(t, "the server to hand the runtime an Asker", func() bool { return a.rt.asker.Load() != nil })
	return k, a, a.rt.asker.Load()
}

func (a *attached) openDialogs() int {
	a.v.mu.Lock()
	defer a.v.mu.Unlock()
	return len(a.v.dialogs)
}

type answer struct {
	value string
	ok    bool
}

// A script's questions open the same dialogs as locally, and what the user answers goes back
// to the script.
func TestScriptQuestionsAnsweredHere(t *testing.T) {
	cases := []struct {
		name  string
		ask   func(ctx context.Context, q *extui.Asker) (string, bool, error)
		title string
		do    func(a *attached)
		want  answer
	}{
		{"select", func(ctx context.Context, q *extui.Asker) (string, bool, error) {
			return q.Select(ctx, "Which branch?", []string{"main", "dev"})
		}, "Which branch?", func(a *attached) { a.press(tcell.KeyDown, tcell.KeyEnter) }, answer{"dev", true}},
		{"input", func(ctx context.Context, q *extui.Asker) (string, bool, error) {
			return q.Input(ctx, "Commit message", "one line")
		}, "Commit message (one line)", func(a *attached) { a.typeText("fix it"); a.press(tcell.KeyEnter) }, answer{"fix it", true}},
		{"select dismissed", func(ctx context.Context, q *extui.Asker) (string, bool, error) {
			return q.Select(ctx, "Which file?", []string{"a.go"})
		}, "Which file?", func(a *attached) { a.press(tcell.KeyEscape) }, answer{"", false}},
		{"confirm", func(ctx context.Context, q *extui.Asker) (string, bool, error) {
			yes, err := q.Confirm(ctx, "Delete the branch?", "for good")
			return "", yes, err
		}, "Delete the branch?", func(a *attached) { a.typeText("y") }, answer{"", true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, a, asker := uiAttached(t)
			got := make(chan answer, 1)
			go func() {
				v, ok, _ := c.ask(context.Background(), asker)
				got <- answer{v, ok}
			}()
			a.shows(t, c.title)
			c.do(a)
			if g := testwait.Receive(t, "the script's answer", got); g != c.want {
				t.Fatalf("the script got %+v, want %+v", g, c.want)
			}
			testwait.Until(t, "the dialog to go", func() bool { return a.openDialogs() == 0 })
		})
	}
}

// A question another client answers first, or one whose timeout passes, takes its dialog
// away here without an answer from this screen.
func TestScriptQuestionsSettledElsewhere(t *testing.T) {
	t.Run("another client answers", func(t *testing.T) {
		k, a, asker := uiAttached(t)
		other := k.dial(t)
		if _, err := other.Request(context.Background(), map[string]any{"command": "attach", "sessionId": a.v.session()}); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			v, _, _ := asker.Select(context.Background(), "Which model?", []string{"small", "large"})
			got <- v
		}()
		a.shows(t, "Which model?")
		var req map[string]any
		testwait.Until(t, "the other client to be asked", func() bool {
			var ev map[string]any
			select {
			case ev = <-other.Events():
			default:
				return false
			}
			line, _ := ev["line"].(string)
			return strings.Contains(line, "extension_ui_request") && json.Unmarshal([]byte(line), &req) == nil
		})
		resp, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": "large"})
		if _, _, err := other.RPC(context.Background(), a.v.session(), resp); err != nil {
			t.Fatal(err)
		}
		if v := testwait.Receive(t, "the script's answer", got); v != "large" {
			t.Fatalf("the script got %q", v)
		}
		testwait.Until(t, "this screen's dialog to close", func() bool { return a.openDialogs() == 0 })
	})
	t.Run("timeout", func(t *testing.T) {
		_, a, asker := uiAttached(t)
		got := make(chan map[string]any, 1)
		go func() {
			r, _ := asker.Ask(context.Background(), "select", map[string]any{"title": "Quick!", "options": []string{"a"}, "timeout": 300})
			got <- r
		}()
		a.shows(t, "Quick!")
		if r := testwait.Receive(t, "the question to time out", got); r["cancelled"] != true {
			t.Fatalf("a timed-out question got %v", r)
		}
		testwait.Until(t, "the dialog to go at its timeout", func() bool { return a.openDialogs() == 0 })
	})
}

// Notices and statuses are shown as they come.
func TestScriptNoticesShown(t *testing.T) {
	_, a, asker := uiAttached(t)
	asker.Notify("the build passed", "info")
	asker.SetStatus("lint", "3 warnings")
	a.shows(t, "the build passed")
	a.shows(t, "3 warnings")
}
