package main

import (
	"strings"
	"sync"
	"testing"

	"pi/provider"
	"pi/provider/faux"
)

// TestSubagentInheritContext: with inherit_context the child's session starts with the
// parent's conversation, as it is when it fits in half the child's window, else compacted by
// a summary the model writes (as /compact does); when that summary fails, the child gets the
// newest messages' text, and the result says so.
func TestSubagentInheritContext(t *testing.T) {
	filler := strings.Repeat("filler text that fills the window ", 9000) // ≈ 77k tokens, over half of 128k
	cases := []struct {
		name, first  string
		summaryFails bool
		want, not    []string // in the child's first request
		wantSummary  bool
		wantNote     string
	}{
		{name: "fits as it is", first: "the secret word is quince",
			want: []string{"the secret word is quince", "[assistant] noted"}, not: []string{"The conversation so far", "<summary>"}},
		{name: "compacted to the window", first: filler + "the secret word is quince", wantSummary: true,
			want: []string{"<summary>\nSUMMARY: the word is quince", "</summary>\n[user] go\n[user] CHILD"}, not: []string{"filler text", "The conversation so far"}},
		{name: "summary fails: the newest text instead", first: filler + "the secret word is quince", summaryFails: true, wantSummary: true,
			want: []string{"The conversation so far", "quince"}, not: []string{"<summary>"},
			wantNote: "note: inherit_context: compacting the conversation for the agent's window failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im := &inheritModel{summaryFails: tc.summaryFails}
			h, _ := subagentSession(t, "[subagents]\nenabled = true\n", cliOptions{}, im.reply)
			send(t, h, tc.first)
			send(t, h, "go")
			im.mu.Lock()
			defer im.mu.Unlock()
			child, summaryPrompt := im.child, im.summaryPrompt
			t.Logf("parent's first message ≈ %d tokens; the child's first request ≈ %d tokens (characters/4)", len(tc.first)/4, len(child)/4)
			if !strings.HasSuffix(child, "CHILD: what is the word?") {
				t.Fatalf("the child's request does not end with its task:\n%.2000s", child)
			}
			for _, w := range tc.want {
				if !strings.Contains(child, w) {
					t.Errorf("the child's request lacks %q:\n%.3000s", w, child)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(child, n) {
					t.Errorf("the child's request has %q:\n%.3000s", n, child)
				}
			}
			if tc.wantSummary != (summaryPrompt != "") || tc.wantSummary && !strings.Contains(summaryPrompt, "CHILD: what is the word?") {
				t.Errorf("summary request (want one: %v, naming the task): %.300q", tc.wantSummary, summaryPrompt)
			}
			results := strings.Join(toolResultTexts(h), "\n")
			if tc.wantNote != "" && !strings.Contains(results, tc.wantNote) || tc.wantNote == "" && strings.Contains(results, "note:") {
				t.Errorf("the Agent result, want note %q:\n%s", tc.wantNote, results)
			}
		})
	}
}

// inheritModel plays the parent, the child (its task says CHILD) and the summariser, and
// keeps the child's first request as text and the summary prompt.
type inheritModel struct {
	summaryFails         bool
	mu                   sync.Mutex
	child, summaryPrompt string
}

func (im *inheritModel) reply(_ string, last provider.Message, req *provider.Request) provider.Message {
	im.mu.Lock()
	defer im.mu.Unlock()
	text := last.TextContent()
	switch {
	case strings.Contains(req.Messages[0].TextContent(), "as a checkpoint"):
		im.summaryPrompt = req.Messages[0].TextContent()
		if im.summaryFails {
			return provider.Message{Role: provider.RoleAssistant, StopReason: provider.StopError, ErrorMessage: "model gone"}
		}
		return faux.Text("SUMMARY: the word is quince")
	case last.Role == provider.RoleUser && strings.Contains(text, "CHILD"):
		var parts []string
		for _, m := range req.Messages {
			parts = append(parts, "["+string(m.Role)+"] "+m.TextContent())
		}
		im.child = strings.Join(parts, "\n")
		return faux.Text("quince")
	case last.Role == provider.RoleUser && strings.HasSuffix(text, "go"):
		return subCall("Agent", map[string]any{"prompt": "CHILD: what is the word?", "description": "w", "inherit_context": true})
	case last.Role == provider.RoleUser:
		return faux.Text("noted")
	}
	return faux.Text("done")
}
