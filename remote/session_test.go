package remote

import (
	"context"
	"slices"
	"testing"

	"pi/internal/testwait"
	"pi/provider"
	"pi/termui"
)

// Each termui.Session method the commands do not reach above sends its RPC command, with its
// fields, to the served session.
func TestSessionMethodsSendTheirRPC(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		call   func(v *view) error
		rpc    string
		fields map[string]any
	}{
		{"thinking", func(v *view) error { return v.SetThinking(ctx, "high") }, "set_thinking_level", map[string]any{"level": "high"}},
		{"steering mode", func(v *view) error { return v.SetQueueMode(ctx, "steer", "all") }, "set_steering_mode", map[string]any{"mode": "all"}},
		{"follow-up mode", func(v *view) error { return v.SetQueueMode(ctx, "followUp", "all") }, "set_follow_up_mode", map[string]any{"mode": "all"}},
		{"auto-compaction off", func(v *view) error { return v.SetAutoCompaction(ctx, false) }, "set_auto_compaction", map[string]any{"enabled": false}},
		{"shortcut", func(v *view) error { return v.RunShortcut(ctx, "ctrl+alt+p") }, "run_shortcut", map[string]any{"key": "ctrl+alt+p"}},
		{"scope cleared", func(v *view) error { return v.SetScope(ctx, nil) }, "scoped_models", map[string]any{"patterns": []any{"all"}}},
		{"a picture with the prompt", func(v *view) error {
			return v.Send(ctx, termui.Input{Text: "look", Images: []provider.Block{provider.Image("aGk=", "image/png")}})
		}, "prompt", map[string]any{"message": "look"}},
		{"a picture with a steer", func(v *view) error {
			return v.Send(ctx, termui.Input{Text: "look", How: termui.SendSteer, Images: []provider.Block{provider.Image("aGk=", "image/png")}})
		}, "prompt", map[string]any{"message": "look", "streamingBehavior": "steer"}},
		{"a follow-up with a picture", func(v *view) error {
			return v.Send(ctx, termui.Input{Text: "then", How: termui.SendFollowUp, Images: []provider.Block{provider.Image("aGk=", "image/png")}})
		}, "follow_up", map[string]any{"message": "then"}},
		{"navigate with a focus", func(v *view) error {
			_, err := v.NavigateTree(ctx, "e1", true, "the API")
			return err
		}, "navigate_tree", map[string]any{"targetId": "e1", "summarize": true, "customInstructions": "the API"}},
		{"leaves", func(v *view) error { _, err := v.LeavesConversation(ctx, "e1"); return err }, "leaves_conversation", map[string]any{"targetId": "e1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := startKit(t, nil)
			a := attach(t, k)
			if err := c.call(a.v); err != nil {
				t.Fatal(err)
			}
			got := a.rt.nextRPC(t)
			if got["type"] != c.rpc {
				t.Fatalf("sent %v, want %s", got, c.rpc)
			}
			for f, want := range c.fields {
				if !equalJSON(got[f], want) {
					t.Errorf("%s = %#v, want %#v", f, got[f], want)
				}
			}
			if c.rpc == "prompt" || c.rpc == "follow_up" {
				if images, _ := got["images"].([]any); len(images) != 1 {
					t.Errorf("the picture did not go: %v", got)
				}
			}
		})
	}
}

// Without pi's extensions the view still prompts, steers, aborts and sets the model with v1's
// commands; pi's commands say why they cannot run; the state comes from the snapshot.
func TestSessionOnAServerWithoutPi(t *testing.T) {
	k := startKit(t, nil)
	a := attach(t, k)
	a.v.c.Hello["capabilities"] = nil // as an upstream server answers
	ctx := context.Background()
	if _, err := a.v.Counts(ctx); err != errNoPi {
		t.Errorf("stats without pi: %v", err)
	}
	if _, err := a.v.Commands(ctx); err != errNoPi {
		t.Errorf("commands without pi: %v", err)
	}
	st, err := a.v.State(ctx)
	if err != nil || st.Model.Provider != "faux" || st.Model.ID != "faux-1" {
		t.Errorf("state from the snapshot: %+v %v", st, err)
	}
	if _, err := a.v.SetModel(ctx, "faux", "other"); err != nil {
		t.Fatal(err)
	}
	if got := a.rt.setModels(); !slices.Equal(got, []string{"faux/other"}) {
		t.Errorf("set_model calls %v", got)
	}
	if err := a.v.Send(ctx, termui.Input{Text: "hello there", Images: []provider.Block{provider.Image("aGk=", "image/png")}}); err != nil {
		t.Fatal(err)
	}
	a.shows(t, "this pi serve takes no pictures: the text goes alone")
	testwait.Until(t, "the prompt to reach the agent", func() bool {
		return slices.ContainsFunc(a.rt.ag.MessagesView(), func(m provider.Message) bool { return m.TextContent() == "hello there" })
	})
	if err := a.v.Send(ctx, termui.Input{Text: "more", How: termui.SendSteer}); err != nil {
		t.Fatal(err)
	}
	a.v.Abort()
	release := a.v.Hold()
	release()
	release() // a second release changes nothing
	if a.v.bashing.Load() != 0 {
		t.Errorf("holds %d", a.v.bashing.Load())
	}
}
