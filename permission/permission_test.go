package permission

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestAskRemembersAnswers(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	ctx := context.Background()
	answer, asked := "", 0
	choose := func(_ context.Context, title string, options []string) (string, bool, error) {
		asked++
		if !slices.Equal(options, Answers()) || !strings.Contains(title, "make") {
			t.Errorf("asked %q with %q", title, options)
		}
		return answer, answer != "", nil
	}
	g := New(Settings{Mode: ModeAsk}, home, dir)
	req := Request{Tool: "bash", Summary: "make", Rule: "bash:make"}
	steps := []struct {
		answer    string
		ok        bool
		wantAsked int
	}{
		{AnswerNo, false, 1},
		{"", false, 2},      // dismissed
		{"maybe", false, 3}, // not an answer: no
		{AnswerYes, true, 4},
		{AnswerYes, true, 5}, // a plain yes is not remembered
		{AnswerSession, true, 6},
		{AnswerNo, true, 6}, // remembered for the session: not asked
	}
	for i, s := range steps {
		answer = s.answer
		ok, reason, err := g.Ask(ctx, req, choose)
		if err != nil || ok != s.ok || asked != s.wantAsked || ok == (reason != "") {
			t.Fatalf("step %d: ok %v reason %q err %v asked %d", i, ok, reason, err, asked)
		}
	}
	if _, err := os.Stat(File(home)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a session answer was written down")
	}
	answer = AnswerProject
	if ok, _, err := g.Ask(ctx, Request{Tool: "edit", Summary: "make", Rule: "edit"}, choose); !ok || err != nil {
		t.Fatal(ok, err)
	}
	g2 := New(Settings{Mode: ModeAsk}, home, dir) // the next session in this project
	answer = AnswerNo
	if ok, _, _ := g2.Ask(ctx, Request{Tool: "edit", Summary: "make", Rule: "edit"}, choose); !ok {
		t.Error("the project answer was not remembered")
	}
	if ok, _, _ := g2.Ask(ctx, req, choose); ok {
		t.Error("a session answer outlived its session")
	}
	if p := g2.Policy(); !slices.Contains(p["allow"].([]any), any("edit")) {
		t.Errorf("remembered rules are not among the allow rules: %v", p)
	}
	other := New(Settings{Mode: ModeAsk}, home, t.TempDir())
	if ok, _, _ := other.Ask(ctx, Request{Tool: "edit", Summary: "make", Rule: "edit"}, choose); ok {
		t.Error("a project answer reached another project")
	}
}

func TestAskWithoutAnyoneToAsk(t *testing.T) {
	ctx := context.Background()
	req := Request{Tool: "bash", Summary: "make", Rule: "bash:make"}
	if ok, reason, _ := New(Settings{Mode: ModeAsk}, t.TempDir(), t.TempDir()).Ask(ctx, req, nil); ok || !strings.Contains(reason, "--yes") {
		t.Errorf("print mode: ok %v reason %q", ok, reason)
	}
	if ok, _, _ := New(Settings{Mode: ModeAsk, Yes: true}, t.TempDir(), t.TempDir()).Ask(ctx, req, nil); !ok {
		t.Error("--yes was not honoured")
	}
}

func TestCheckFailsClosed(t *testing.T) {
	tests := []struct {
		s        Settings
		approved bool
		block    bool
	}{
		{Settings{}, false, false},
		{Settings{Mode: ModeAuto}, false, false},
		{Settings{Mode: ModeAsk}, false, true},
		{Settings{Mode: ModeAsk}, true, false},
		{Settings{Mode: ModeReadOnly}, false, true},
		{Settings{Deny: []string{"bash:rm"}}, false, true},
	}
	for _, tt := range tests {
		if block, reason := New(tt.s, "", "").Check("bash", tt.approved); block != tt.block || block == (reason == "") {
			t.Errorf("%+v approved %v: block %v %q", tt.s, tt.approved, block, reason)
		}
	}
	var none *Gate
	if block, _ := none.Check("bash", false); block {
		t.Error("a nil gate blocked")
	}
}
