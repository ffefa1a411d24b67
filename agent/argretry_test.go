package agent

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/faux"
	"pi/tools"
)

// constraining is the faux provider with the constrained-retry capability: the retry goes
// through provider.AskArguments and so through the faux script, unless retry replaces it.
type constraining struct {
	*faux.Provider
	retry func(ctx context.Context, ar *provider.ArgumentsRequest) (provider.ArgumentsReply, error)
	asked atomic.Int32
}

func (c *constraining) ConstrainedArguments(ctx context.Context, ar *provider.ArgumentsRequest) (provider.ArgumentsReply, error) {
	c.asked.Add(1)
	if c.retry != nil {
		return c.retry(ctx, ar)
	}
	return provider.AskArguments(ctx, c.Provider, ar)
}

func retryDetails(t *testing.T, m provider.Message) *argumentRetry {
	t.Helper()
	if len(m.Details) == 0 {
		return nil
	}
	var d struct {
		Retry *argumentRetry `json:"argumentRetry"`
	}
	if err := json.Unmarshal(m.Details, &d); err != nil {
		t.Fatalf("details %s: %v", m.Details, err)
	}
	return d.Retry
}

func TestArgumentRetry(t *testing.T) {
	badCall := call("c1", "t", map[string]any{"x": "seven"})
	rawCall := faux.Blocks(provider.Block{Type: provider.BlockToolCall, ID: "c1", Name: "t",
		Arguments: map[string]any{}, RawArguments: `{"x": 7`})
	original := tools.FormatValidationError("t", mustFail(t, map[string]any{"x": "seven"}), map[string]any{"x": "seven"})
	cases := []struct {
		name       string
		first      provider.Message
		retry      faux.Step
		noRetry    bool // argument_repair = false
		plain      bool // a provider without the capability
		wantResult string
		wantFixed  *bool // nil: no retry recorded
		wantAsked  int32
	}{
		{name: "fixed", first: badCall, retry: faux.Text(`{"x": 7}`), wantResult: `t got {"x":7}`, wantFixed: ptr(true), wantAsked: 1},
		{name: "not JSON at first", first: rawCall, retry: faux.Text(`{"x": 8}`), wantResult: `t got {"x":8}`, wantFixed: ptr(true), wantAsked: 1},
		{name: "invalid again", first: badCall, retry: faux.Text(`{"x": "eight"}`), wantResult: original, wantFixed: ptr(false), wantAsked: 1},
		{name: "garbage", first: badCall, retry: faux.Text("I cannot do that"), wantResult: original, wantFixed: ptr(false), wantAsked: 1},
		{name: "server refuses the schema", first: badCall, retry: faux.Error("400 format is not supported"), wantResult: original, wantFixed: ptr(false), wantAsked: 1},
		{name: "turned off", first: badCall, noRetry: true, wantResult: original},
		{name: "provider cannot", first: badCall, plain: true, wantResult: original},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps := []faux.Step{tc.first}
			if tc.retry != nil {
				steps = append(steps, tc.retry)
			}
			fp := faux.New(append(steps, faux.Text("done"))...)
			var p provider.Provider = fp
			cp := &constraining{Provider: fp}
			if !tc.plain {
				p = cp
			}
			a := New(Config{Provider: p, Model: provider.Model{ID: "m", API: "faux", NoArgumentRetry: tc.noRetry},
				SystemPrompt: "sys", Tools: []tools.Tool{testTool("t", nil)}})
			prompt(t, a, "go")
			res := lastToolResults(a)
			if len(res) != 1 || res[0].Content[0].Text != tc.wantResult {
				t.Fatalf("tool result = %+v, want text %q", res, tc.wantResult)
			}
			if got := cp.asked.Load(); got != tc.wantAsked {
				t.Errorf("retries asked = %d, want %d", got, tc.wantAsked)
			}
			r := retryDetails(t, res[0])
			switch {
			case tc.wantFixed == nil && r != nil:
				t.Errorf("details record a retry that should not be: %s", res[0].Details)
			case tc.wantFixed != nil && (r == nil || r.Fixed != *tc.wantFixed):
				t.Errorf("details %s, want fixed = %v", res[0].Details, *tc.wantFixed)
			case r != nil && !r.Fixed && r.Failure == "":
				t.Errorf("a retry that did not help says nothing of why: %s", res[0].Details)
			}
			if fp.Pending() != 0 {
				t.Errorf("%d scripted replies left: the run made fewer model calls than expected", fp.Pending())
			}
		})
	}
}

// The retry repeats the request of the reply that made the call, adds one instruction naming
// the tool and the problem, and constrains the reply to the tool's schema.
func TestArgumentRetryRepeatsThePrefix(t *testing.T) {
	fp := faux.New(call("c1", "t", map[string]any{}), faux.Text(`{"x": 1}`), faux.Text("done"))
	a := New(Config{Provider: &constraining{Provider: fp}, Model: provider.Model{ID: "m", API: "faux"},
		SystemPrompt: "sys", Tools: []tools.Tool{testTool("t", nil)}, Thinking: "high"})
	prompt(t, a, "go")
	reqs := fp.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3 (reply, retry, answer)", len(reqs))
	}
	first, retry := reqs[0], reqs[1]
	if !reflect.DeepEqual(retry.Messages[:len(first.Messages)], first.Messages) || retry.SystemPrompt != first.SystemPrompt ||
		!reflect.DeepEqual(retry.Tools, first.Tools) {
		t.Errorf("the retry does not repeat the first request's prefix")
	}
	if len(retry.Messages) != len(first.Messages)+3 {
		t.Fatalf("retry has %d messages, want %d", len(retry.Messages), len(first.Messages)+3)
	}
	added := retry.Messages[len(first.Messages):]
	if calls := added[0].ToolCalls(); added[0].Role != provider.RoleAssistant || len(calls) != 1 || calls[0].ID != "c1" {
		t.Errorf("the retry should repeat the call: %+v", added[0])
	}
	if r := added[1]; r.Role != provider.RoleToolResult || r.ToolCallID != "c1" || !r.IsError || !strings.Contains(r.TextContent(), "are invalid") {
		t.Errorf("the retry should answer the call with its error: %+v", r)
	}
	ask := added[2]
	if text := ask.TextContent(); ask.Role != provider.RoleUser || !strings.Contains(text, `"t"`) || !strings.Contains(text, "x:") {
		t.Errorf("instruction = %s %q, want a user message naming the tool and the missing field", ask.Role, text)
	}
	if string(retry.ReplySchema) != string(intSchema) || first.ReplySchema != nil {
		t.Errorf("reply schema: retry %s, first %s", retry.ReplySchema, first.ReplySchema)
	}
	if retry.Options != first.Options {
		t.Errorf("retry options %+v differ from the reply's %+v", retry.Options, first.Options)
	}
	// The transcript keeps what the model sent; the details say what ran.
	var assistant provider.Message
	for _, m := range a.State().Messages {
		if m.Role == provider.RoleAssistant && len(m.ToolCalls()) > 0 {
			assistant = m
		}
	}
	if args := assistant.ToolCalls()[0].Arguments; len(args) != 0 {
		t.Errorf("transcript call arguments = %v, want the model's own {}", args)
	}
	r := retryDetails(t, lastToolResults(a)[0])
	if r == nil || !reflect.DeepEqual(r.Original, map[string]any{}) || r.Arguments["x"] != 1.0 || !strings.Contains(r.Error, "x") {
		t.Errorf("retry record = %+v", r)
	}
}

// A retry that never answers ends at its own deadline, or at once on abort; either way the
// model gets its validation error or the abort, and the run does not hang.
func TestArgumentRetryThatStalls(t *testing.T) {
	for _, abort := range []bool{false, true} {
		fp := faux.New(call("c1", "t", map[string]any{}), faux.Text("done"))
		started := make(chan struct{}, 1)
		cp := &constraining{Provider: fp, retry: func(ctx context.Context, _ *provider.ArgumentsRequest) (provider.ArgumentsReply, error) {
			started <- struct{}{}
			<-ctx.Done()
			return provider.ArgumentsReply{}, ctx.Err()
		}}
		timeout := time.Hour
		if !abort {
			timeout = 50 * time.Millisecond
		}
		a := New(Config{Provider: cp, Model: provider.Model{ID: "m", API: "faux"}, Tools: []tools.Tool{testTool("t", nil)},
			ArgumentRetryTimeout: timeout})
		if abort {
			go func() { <-started; a.Abort() }()
		}
		done := make(chan struct{})
		go func() { prompt(t, a, "go"); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("abort=%v: the run still waits for a stalled retry", abort)
		}
		res := lastToolResults(a)
		if len(res) != 1 || !res[0].IsError {
			t.Fatalf("abort=%v: results %+v", abort, res)
		}
		text := res[0].Content[0].Text
		if abort && !strings.Contains(text, "aborted") || !abort && !strings.Contains(text, "are invalid") {
			t.Errorf("abort=%v: result %q", abort, text)
		}
		if r := retryDetails(t, res[0]); r == nil || r.Fixed || (!abort && !strings.Contains(r.Failure, "no answer within")) {
			t.Errorf("abort=%v: retry record %+v", abort, r)
		}
	}
}

func mustFail(t *testing.T, args map[string]any) error {
	t.Helper()
	s, err := tools.CompileSchema(intSchema)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Prepare(args)
	if err == nil {
		t.Fatalf("arguments %v pass the schema", args)
	}
	return err
}

func ptr[T any](v T) *T { return &v }
