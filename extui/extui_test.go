package extui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// wire is a transport that hands each line to the test.
type wire struct {
	lines    chan []byte
	receiver bool // whether anybody is there to read a line
}

func newWire(receiver bool) (*wire, *Asker) {
	w := &wire{lines: make(chan []byte, 16), receiver: receiver}
	return w, New(func(line []byte) bool { w.lines <- line; return w.receiver })
}

func (w *wire) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case line := <-w.lines:
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no line was sent")
		return nil
	}
}

func TestQuestionsAndAnswers(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, method, answer string // answer: the response's fields; "" sends none
		ask                  func(a *Asker) string
		want                 string
	}{
		{"confirm yes", "confirm", `"confirmed":true`, func(a *Asker) string { y, _ := a.Confirm(ctx, "Go?", "sure"); return fmt.Sprint(y) }, "true"},
		{"confirm cancelled", "confirm", `"cancelled":true,"confirmed":true`, func(a *Asker) string { y, _ := a.Confirm(ctx, "Go?", ""); return fmt.Sprint(y) }, "false"},
		{"select", "select", `"value":"b"`, func(a *Asker) string {
			v, ok, _ := a.Select(ctx, "Pick", []string{"a", "b"})
			return fmt.Sprintf("%s %v", v, ok)
		}, "b true"},
		{"input", "input", `"value":"Ada"`, func(a *Asker) string { v, ok, _ := a.Input(ctx, "Name?", "anon"); return fmt.Sprintf("%s %v", v, ok) }, "Ada true"},
		{"editor dismissed", "editor", `"cancelled":true`, func(a *Asker) string { v, ok, _ := a.Editor(ctx, "Edit", "x"); return fmt.Sprintf("%s %v", v, ok) }, " false"},
		{"timeout", "confirm", "", func(a *Asker) string {
			r, _ := a.Ask(ctx, "confirm", map[string]any{"title": "Quick?", "timeout": 30})
			return fmt.Sprint(r["cancelled"])
		}, "true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, a := newWire(true)
			got := make(chan string, 1)
			go func() { got <- tc.ask(a) }()
			req := w.next(t)
			if req["type"] != "extension_ui_request" || req["method"] != tc.method || req["id"] == "" {
				t.Fatalf("request %v", req)
			}
			if tc.answer != "" && !a.Route([]byte(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,%s}`, req["id"], tc.answer))) {
				t.Fatal("the answer was not taken for one")
			}
			if g := <-got; g != tc.want {
				t.Fatalf("got %q, want %q", g, tc.want)
			}
		})
	}
}

func TestNobodyThereCancelAndClose(t *testing.T) {
	ctx := context.Background()
	w, a := newWire(false)
	if yes, err := a.Confirm(ctx, "Anyone?", ""); yes || err != nil {
		t.Fatalf("with nobody to ask: %v %v", yes, err)
	}
	<-w.lines
	w.receiver = true
	open := make(chan bool, 2)
	go func() { _, ok, _ := a.Select(ctx, "Pick", []string{"x"}); open <- ok }()
	w.next(t)
	a.Cancel()
	if ok := <-open; ok {
		t.Fatal("a cancelled question got a value")
	}
	go func() { _, ok, _ := a.Input(ctx, "Still?", ""); open <- ok }()
	w.next(t)
	a.Close()
	if ok := <-open; ok {
		t.Fatal("a question open at Close got a value")
	}
	if yes, _ := a.Confirm(ctx, "After?", ""); yes || len(w.lines) > 0 {
		t.Fatal("a question after Close was sent or answered yes")
	}
	if a.Route([]byte(`{"type":"extension_ui_response","id":"nobody","value":"x"}`)) != true || a.Route([]byte(`{"type":"prompt"}`)) {
		t.Fatal("Route tells answers from other lines wrongly")
	}
}

// The lines are stable: type, id and method first, then the fields by name.
func TestRequestLine(t *testing.T) {
	line := string(requestLine("i", "select", map[string]any{"title": "T", "options": []string{"a"}, "id": "ignored", "a<b": 1}))
	want := `{"type":"extension_ui_request","id":"i","method":"select","a\u003cb":1,"options":["a"],"title":"T"}`
	if line != want {
		t.Fatalf("got  %s\nwant %s", line, want)
	}
	w, a := newWire(true)
	a.Notify("saved", "info")
	a.SetStatus("k", "")
	a.ExtensionError("/p.lua", "tool_call", "boom")
	n, st, e := w.next(t), w.next(t), w.next(t)
	if n["method"] != "notify" || n["notifyType"] != "info" || st["statusKey"] != "k" || st["statusText"] != nil ||
		e["type"] != "extension_error" || e["extensionPath"] != "/p.lua" {
		t.Fatalf("notices %v %v %v", n, st, e)
	}
}

// FuzzRoute feeds Route any line: it never panics, and it claims only extension_ui_response
// objects.
func FuzzRoute(f *testing.F) {
	f.Add([]byte(`{"type":"extension_ui_response","id":"x","value":"v"}`))
	f.Add([]byte(`{"type":"extension_ui_response"`))
	f.Add([]byte(`["extension_ui_response"]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		_, a := newWire(true)
		if a.Route(line) && !strings.Contains(string(line), "extension_ui_response") {
			t.Fatalf("claimed %q", line)
		}
	})
}
