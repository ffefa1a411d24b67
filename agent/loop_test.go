package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pi/provider"
	"pi/provider/faux"
	"pi/tools"
)

// recorder keeps a copy of every event an agent emits.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) record(_ context.Context, ev Event) {
	if ev.Message != nil {
		m := ev.Message.Clone()
		ev.Message = &m
	}
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// types lists event types, folding runs of message_update into one entry.
func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		name := ev.Type
		if ev.Message != nil && ev.Type != EvMessageUpdate && ev.Type != EvTurnEnd {
			name += "(" + string(ev.Message.Role) + ")"
		}
		if ev.ToolCallID != "" {
			name += "(" + ev.ToolCallID + ")"
		}
		if name == EvMessageUpdate && len(out) > 0 && out[len(out)-1] == EvMessageUpdate {
			continue
		}
		out = append(out, name)
	}
	return out
}

func (r *recorder) ofType(typ string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, ev := range r.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

var intSchema = json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}`)

// testTool records its calls and answers with its arguments.
func testTool(name string, run func(ctx context.Context, args map[string]any) (tools.Result, error)) *tools.Func {
	if run == nil {
		run = func(_ context.Context, args map[string]any) (tools.Result, error) {
			data, _ := json.Marshal(args)
			return tools.TextResult(name + " got " + string(data)), nil
		}
	}
	return &tools.Func{Spec: tools.Info{Name: name, Description: "test tool " + name, Parameters: intSchema},
		Run: func(ctx context.Context, _ string, args map[string]any, _ func(tools.Result)) (tools.Result, error) {
			return run(ctx, args)
		}}
}

func newTestAgent(t testing.TB, p *faux.Provider, ts ...tools.Tool) (*Agent, *recorder) {
	t.Helper()
	a := New(Config{Provider: p, Model: provider.Model{ID: "faux-1", Provider: "faux", API: "faux"},
		SystemPrompt: "test", Tools: ts})
	rec := &recorder{}
	a.Subscribe(rec.record)
	return a, rec
}

func prompt(t testing.TB, a *Agent, text string) {
	t.Helper()
	if err := a.Prompt(context.Background(), provider.UserText(text, 1)); err != nil {
		t.Fatalf("Prompt: %v", err)
	}
}

func roles(msgs []provider.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Role)
	}
	return out
}

func lastToolResults(a *Agent) []provider.Message {
	var out []provider.Message
	for _, m := range a.State().Messages {
		if m.Role == provider.RoleToolResult {
			out = append(out, m)
		}
	}
	return out
}

func call(id, name string, args map[string]any) provider.Message {
	return faux.Blocks(faux.Call(id, name, args))
}

func TestEventOrderForSinglePrompt(t *testing.T) {
	a, rec := newTestAgent(t, faux.New(faux.Text("hello there, this reply streams in several chunks")))
	prompt(t, a, "hi")
	want := []string{"agent_start", "turn_start", "message_start(user)", "message_end(user)",
		"message_start(assistant)", "message_update", "message_end(assistant)", "turn_end", "agent_end"}
	if got := rec.types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	if n := len(rec.ofType(EvMessageUpdate)); n < 4 {
		t.Errorf("want the reply streamed in several deltas, got %d updates", n)
	}
	end := rec.ofType(EvAgentEnd)[0]
	if got := roles(end.Messages); !reflect.DeepEqual(got, []string{"user", "assistant"}) {
		t.Errorf("agent_end messages = %v", got)
	}
}

func TestToolRoundTrip(t *testing.T) {
	var seen []provider.Message
	p := faux.New(call("c1", "echo", map[string]any{"x": 7}), faux.Reply(func(req *provider.Request) provider.Message {
		seen = req.Messages
		return faux.Text("done")
	}))
	a, rec := newTestAgent(t, p, testTool("echo", nil))
	prompt(t, a, "use the tool")
	want := []string{"agent_start", "turn_start", "message_start(user)", "message_end(user)",
		"message_start(assistant)", "message_update", "message_end(assistant)",
		"tool_execution_start(c1)", "tool_execution_end(c1)", "message_start(toolResult)", "message_end(toolResult)",
		"turn_end", "turn_start", "message_start(assistant)", "message_update", "message_end(assistant)", "turn_end", "agent_end"}
	if got := rec.types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	if end := rec.ofType(EvToolExecutionEnd)[0]; end.IsError {
		t.Errorf("tool_execution_end isError = true: %+v", end.Result)
	}
	if got := roles(seen); !reflect.DeepEqual(got, []string{"user", "assistant", "toolResult"}) {
		t.Fatalf("second model call saw %v", got)
	}
	if got := seen[2].TextContent(); got != `echo got {"x":7}` {
		t.Errorf("tool result = %q", got)
	}
}

func TestUnknownTool(t *testing.T) {
	a, _ := newTestAgent(t, faux.New(call("c1", "nosuch", nil), faux.Text("ok")), testTool("echo", nil))
	prompt(t, a, "go")
	res := lastToolResults(a)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].TextContent(), `"nosuch"`) ||
		!strings.Contains(res[0].TextContent(), "echo") {
		t.Fatalf("want an error naming the tool and the available ones, got %+v", res)
	}
}

func TestInvalidArgumentsNameFieldAndEchoArguments(t *testing.T) {
	ran := false
	tool := testTool("echo", func(context.Context, map[string]any) (tools.Result, error) { ran = true; return tools.Result{}, nil })
	a, _ := newTestAgent(t, faux.New(call("c1", "echo", map[string]any{"x": "seven"}), faux.Text("ok")), tool)
	prompt(t, a, "go")
	res := lastToolResults(a)
	text := res[0].TextContent()
	if ran || !res[0].IsError {
		t.Fatalf("tool ran=%v isError=%v", ran, res[0].IsError)
	}
	for _, want := range []string{"x", "integer", `"seven"`} {
		if !strings.Contains(text, want) {
			t.Errorf("error text lacks %q:\n%s", want, text)
		}
	}
}

func TestRepairedArgumentsSucceed(t *testing.T) {
	var got any
	tool := testTool("echo", func(_ context.Context, args map[string]any) (tools.Result, error) {
		got = args["x"]
		return tools.TextResult("ok"), nil
	})
	a, _ := newTestAgent(t, faux.New(call("c1", "echo", map[string]any{"x": "5"}), faux.Text("ok")), tool)
	prompt(t, a, "go")
	if res := lastToolResults(a); res[0].IsError {
		t.Fatalf("repairable arguments failed: %s", res[0].TextContent())
	}
	if fmt.Sprint(got) != "5" {
		t.Fatalf("tool got x=%#v, want the number 5", got)
	}
	if _, isString := got.(string); isString {
		t.Fatalf("x stayed a string")
	}
}

func TestBeforeHookBlocks(t *testing.T) {
	ran := false
	tool := testTool("echo", func(context.Context, map[string]any) (tools.Result, error) { ran = true; return tools.Result{}, nil })
	a, _ := newTestAgent(t, faux.New(call("c1", "echo", map[string]any{"x": 1}), faux.Text("ok")), tool)
	a.hooks.BeforeToolCall = func(_ context.Context, c *ToolCall) (ToolCallDecision, error) {
		return ToolCallDecision{Block: true, Reason: "not allowed here"}, nil
	}
	prompt(t, a, "go")
	res := lastToolResults(a)
	if ran || !res[0].IsError || res[0].TextContent() != "not allowed here" {
		t.Fatalf("ran=%v result=%+v", ran, res[0])
	}
}

func TestBeforeHookMutatesArgumentsWithoutRevalidation(t *testing.T) {
	var got any
	tool := testTool("echo", func(_ context.Context, args map[string]any) (tools.Result, error) {
		got = args["x"]
		return tools.TextResult("ok"), nil
	})
	a, _ := newTestAgent(t, faux.New(call("c1", "echo", map[string]any{"x": 1}), faux.Text("ok")), tool)
	a.hooks.BeforeToolCall = func(_ context.Context, c *ToolCall) (ToolCallDecision, error) {
		c.Args["x"] = "not an integer" // would fail validation
		return ToolCallDecision{}, nil
	}
	prompt(t, a, "go")
	if got != "not an integer" || lastToolResults(a)[0].IsError {
		t.Fatalf("tool got %#v, result %+v", got, lastToolResults(a)[0])
	}
	if sent := a.State().Messages[1].ToolCalls()[0].Arguments["x"]; fmt.Sprint(sent) != "1" {
		t.Fatalf("the transcript should keep what the model sent, has x=%#v", sent)
	}
}

func TestAfterHookRewritesResult(t *testing.T) {
	yes := true
	p := faux.New(call("c1", "echo", map[string]any{"x": 1}), faux.Text("unused"))
	a, _ := newTestAgent(t, p, testTool("echo", nil))
	a.hooks.AfterToolCall = func(_ context.Context, c *ToolCall, r tools.Result) (ResultOverride, error) {
		return ResultOverride{Content: []provider.Block{provider.Text("rewritten")}, IsError: &yes, Terminate: &yes}, nil
	}
	prompt(t, a, "go")
	res := lastToolResults(a)[0]
	if res.TextContent() != "rewritten" || !res.IsError {
		t.Fatalf("result not rewritten: %+v", res)
	}
	if p.Calls() != 1 {
		t.Fatalf("terminate from the after-hook should stop the loop; model calls = %d", p.Calls())
	}
}

func TestToolPanicBecomesErrorResult(t *testing.T) {
	tool := testTool("boom", func(context.Context, map[string]any) (tools.Result, error) { panic("kaboom") })
	a, _ := newTestAgent(t, faux.New(call("c1", "boom", map[string]any{"x": 1}), faux.Text("ok")), tool)
	prompt(t, a, "go")
	res := lastToolResults(a)[0]
	if !res.IsError || !strings.Contains(res.TextContent(), "kaboom") {
		t.Fatalf("want an error result carrying the panic, got %+v", res)
	}
	if got := roles(a.State().Messages); !reflect.DeepEqual(got, []string{"user", "assistant", "toolResult", "assistant"}) {
		t.Fatalf("the loop should go on after a panic; messages %v", got)
	}
}

func TestParallelToolsEndInCompletionOrderResultsInSourceOrder(t *testing.T) {
	// slow starts, fast runs while slow waits for it, slow ends last: only tools that run at
	// once can do that, whatever the machine's load.
	slowStarted := make(chan struct{})
	var overlap atomic.Int32
	var rec *recorder
	slow := func(context.Context, map[string]any) (tools.Result, error) {
		close(slowStarted)
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
			if len(rec.ofType(EvToolExecutionEnd)) > 0 { // fast's end is out
				break
			}
		}
		return tools.TextResult("ok"), nil
	}
	fast := func(context.Context, map[string]any) (tools.Result, error) {
		select {
		case <-slowStarted:
			overlap.Store(1)
		case <-time.After(10 * time.Second):
		}
		return tools.TextResult("ok"), nil
	}
	p := faux.New(faux.Blocks(faux.Call("t1", "slow", map[string]any{"x": 1}), faux.Call("t2", "fast", map[string]any{"x": 2})), faux.Text("ok"))
	a, r := newTestAgent(t, p, testTool("slow", slow), testTool("fast", fast))
	rec = r
	prompt(t, a, "go")
	var ends []string
	for _, ev := range rec.ofType(EvToolExecutionEnd) {
		ends = append(ends, ev.ToolCallID)
	}
	if !reflect.DeepEqual(ends, []string{"t2", "t1"}) {
		t.Errorf("tool_execution_end order = %v, want [t2 t1]", ends)
	}
	var results []string
	for _, m := range lastToolResults(a) {
		results = append(results, m.ToolCallID)
	}
	if !reflect.DeepEqual(results, []string{"t1", "t2"}) {
		t.Errorf("result messages order = %v, want [t1 t2]", results)
	}
	turnEnd := rec.ofType(EvTurnEnd)[0]
	if len(turnEnd.ToolResults) != 2 || turnEnd.ToolResults[0].ToolCallID != "t1" || turnEnd.ToolResults[1].ToolCallID != "t2" {
		t.Errorf("turn_end.toolResults = %v", turnEnd.ToolResults)
	}
	if overlap.Load() == 0 {
		t.Errorf("parallel tools did not overlap")
	}
}

func TestSequentialToolSerialisesWholeBatch(t *testing.T) {
	var running, overlap atomic.Int32
	run := func(context.Context, map[string]any) (tools.Result, error) {
		if running.Add(1) > 1 {
			overlap.Store(1)
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return tools.TextResult("ok"), nil
	}
	seq := testTool("seq", run)
	seq.Spec.Sequential = true
	p := faux.New(faux.Blocks(faux.Call("a", "par", map[string]any{"x": 1}), faux.Call("b", "seq", map[string]any{"x": 2}),
		faux.Call("c", "par", map[string]any{"x": 3})), faux.Text("ok"))
	a, rec := newTestAgent(t, p, testTool("par", run), seq)
	prompt(t, a, "go")
	if overlap.Load() != 0 {
		t.Fatalf("a batch with a sequential tool ran calls at the same time")
	}
	var got []string
	for _, name := range rec.types() {
		if strings.HasPrefix(name, "tool_execution") || strings.HasSuffix(name, "(toolResult)") {
			got = append(got, name)
		}
	}
	var want []string
	for _, id := range []string{"a", "b", "c"} {
		want = append(want, "tool_execution_start("+id+")", "tool_execution_end("+id+")",
			"message_start(toolResult)", "message_end(toolResult)")
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sequential batch events:\n got %v\nwant %v", got, want)
	}
}

func TestSteeringDuringToolsArrivesAfterAllResults(t *testing.T) {
	var a *Agent
	var seen []provider.Message
	steerOnce := sync.Once{}
	tool := testTool("echo", func(context.Context, map[string]any) (tools.Result, error) {
		steerOnce.Do(func() { a.Steer(provider.UserText("change of plan", 2)) })
		return tools.TextResult("ok"), nil
	})
	p := faux.New(faux.Blocks(faux.Call("t1", "echo", map[string]any{"x": 1}), faux.Call("t2", "echo", map[string]any{"x": 2})),
		faux.Reply(func(req *provider.Request) provider.Message { seen = req.Messages; return faux.Text("ok") }))
	a, _ = newTestAgent(t, p, tool)
	prompt(t, a, "go")
	if got := roles(seen); !reflect.DeepEqual(got, []string{"user", "assistant", "toolResult", "toolResult", "user"}) {
		t.Fatalf("second call saw %v", got)
	}
	if seen[4].TextContent() != "change of plan" {
		t.Fatalf("steering message = %q", seen[4].TextContent())
	}
	if p.Calls() != 2 {
		t.Fatalf("model calls = %d, want 2", p.Calls())
	}
}

func TestFollowUpRunsOnlyWhenAgentWouldStop(t *testing.T) {
	var a *Agent
	var secondSaw []string
	p := faux.New(
		faux.Reply(func(req *provider.Request) provider.Message {
			a.FollowUp(provider.UserText("and then?", 2))
			return call("t1", "echo", map[string]any{"x": 1})
		}),
		faux.Reply(func(req *provider.Request) provider.Message {
			secondSaw = roles(req.Messages)
			return faux.Text("tool done")
		}),
		faux.Text("follow-up answered"))
	a, _ = newTestAgent(t, p, testTool("echo", nil))
	prompt(t, a, "go")
	if !reflect.DeepEqual(secondSaw, []string{"user", "assistant", "toolResult"}) {
		t.Fatalf("the follow-up jumped the queue: second call saw %v", secondSaw)
	}
	want := []string{"user", "assistant", "toolResult", "assistant", "user", "assistant"}
	if got := roles(a.State().Messages); !reflect.DeepEqual(got, want) || p.Calls() != 3 {
		t.Fatalf("messages %v, calls %d", got, p.Calls())
	}
}

func TestQueueDrainModes(t *testing.T) {
	cases := []struct {
		name      string
		steer     bool
		mode      QueueMode
		wantCalls int
	}{
		{"steer one-at-a-time", true, OneAtATime, 3},
		{"steer all", true, AllAtOnce, 2},
		{"follow-up one-at-a-time", false, OneAtATime, 3},
		{"follow-up all", false, AllAtOnce, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var a *Agent
			p := faux.New(faux.Reply(func(*provider.Request) provider.Message {
				for _, text := range []string{"one", "two"} {
					if tc.steer {
						a.Steer(provider.UserText(text, 2))
					} else {
						a.FollowUp(provider.UserText(text, 2))
					}
				}
				return faux.Text("first")
			}), faux.Text("second"), faux.Text("third"))
			a, _ = newTestAgent(t, p)
			if tc.steer {
				a.SetQueueModes(tc.mode, OneAtATime)
			} else {
				a.SetQueueModes(OneAtATime, tc.mode)
			}
			prompt(t, a, "go")
			if p.Calls() != tc.wantCalls {
				t.Fatalf("model calls = %d, want %d (messages %v)", p.Calls(), tc.wantCalls, roles(a.State().Messages))
			}
		})
	}
}

func TestTerminate(t *testing.T) {
	term := func(flag bool) func(context.Context, map[string]any) (tools.Result, error) {
		return func(context.Context, map[string]any) (tools.Result, error) {
			r := tools.TextResult("ok")
			r.Terminate = flag
			return r, nil
		}
	}
	cases := []struct {
		name      string
		second    bool
		wantCalls int
		wantRoles []string
	}{
		{"all terminate", true, 1, []string{"user", "assistant", "toolResult", "toolResult"}},
		{"mixed", false, 2, []string{"user", "assistant", "toolResult", "toolResult", "assistant"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := faux.New(faux.Blocks(faux.Call("a", "t1", map[string]any{"x": 1}), faux.Call("b", "t2", map[string]any{"x": 1})), faux.Text("after"))
			a, rec := newTestAgent(t, p, testTool("t1", term(true)), testTool("t2", term(tc.second)))
			prompt(t, a, "go")
			if p.Calls() != tc.wantCalls || !reflect.DeepEqual(roles(a.State().Messages), tc.wantRoles) {
				t.Fatalf("calls %d, messages %v", p.Calls(), roles(a.State().Messages))
			}
			if n := len(rec.ofType(EvTurnEnd)); n != tc.wantCalls {
				t.Fatalf("turn_end events = %d", n)
			}
		})
	}
}

func TestLengthStoppedReplyDoesNotRunTools(t *testing.T) {
	ran := false
	tool := testTool("echo", func(context.Context, map[string]any) (tools.Result, error) { ran = true; return tools.Result{}, nil })
	cut := call("c1", "echo", map[string]any{"x": 1})
	cut.StopReason = provider.StopLength
	p := faux.New(cut, faux.Text("retrying properly"))
	a, _ := newTestAgent(t, p, tool)
	prompt(t, a, "go")
	res := lastToolResults(a)
	if ran || len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].TextContent(), "output token limit") {
		t.Fatalf("ran=%v results=%+v", ran, res)
	}
	if p.Calls() != 2 {
		t.Fatalf("the loop should continue so the model can re-issue the call; calls = %d", p.Calls())
	}
}

func TestProviderErrorEndsRunWithTurnEnd(t *testing.T) {
	a, rec := newTestAgent(t, faux.New(faux.Error("server exploded")))
	prompt(t, a, "go")
	got := rec.types()
	if tail := got[len(got)-2:]; !reflect.DeepEqual(tail, []string{"turn_end", "agent_end"}) {
		t.Fatalf("events end with %v", tail)
	}
	if st := a.State(); st.ErrorMessage != "server exploded" {
		t.Fatalf("state error = %q", st.ErrorMessage)
	}
}

func TestExhaustedScriptIsAnErrorNotAPanic(t *testing.T) {
	a, _ := newTestAgent(t, faux.New())
	prompt(t, a, "go")
	if st := a.State(); !strings.Contains(st.ErrorMessage, "no more scripted replies") {
		t.Fatalf("state error = %q", st.ErrorMessage)
	}
}

func TestAbortWhileStreamingKeepsPartialContent(t *testing.T) {
	p := faux.New(faux.Text(strings.Repeat("a fairly long answer ", 50)))
	p.ChunkDelay = 5 * time.Millisecond
	a, _ := newTestAgent(t, p)
	var once sync.Once
	a.Subscribe(func(_ context.Context, ev Event) {
		if ev.Type == EvMessageUpdate && len(ev.Message.TextContent()) > 40 {
			once.Do(a.Abort)
		}
	})
	prompt(t, a, "go")
	msgs := a.State().Messages
	last := msgs[len(msgs)-1]
	if last.StopReason != provider.StopAborted {
		t.Fatalf("stopReason = %q", last.StopReason)
	}
	if n := len(last.TextContent()); n == 0 || n >= 50*21 {
		t.Fatalf("want partial content, got %d bytes", n)
	}
}

func TestAbortDuringToolCancelsItsContext(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan struct{})
	tool := testTool("wait", func(ctx context.Context, _ map[string]any) (tools.Result, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return tools.Result{}, ctx.Err()
	})
	a, _ := newTestAgent(t, faux.New(call("c1", "wait", map[string]any{"x": 1}), faux.Text("never")), tool)
	go func() { <-started; a.Abort() }()
	prompt(t, a, "go")
	select {
	case <-cancelled:
	default:
		t.Fatal("the tool's context was not cancelled")
	}
	res := lastToolResults(a)[0]
	if !res.IsError || !strings.Contains(strings.ToLower(res.TextContent()), "aborted") {
		t.Fatalf("result = %+v", res)
	}
	// The run ends with the tool's result: no further model call, not even an aborted one.
	if got := roles(a.State().Messages); strings.Join(got, ",") != "user,assistant,toolResult" {
		t.Fatalf("transcript after an abort during a tool: %v", got)
	}
}

func TestContinue(t *testing.T) {
	cases := []struct {
		name    string
		history []provider.Message
		wantErr error
	}{
		{"empty", nil, ErrEmptyContext},
		{"assistant tail", []provider.Message{provider.UserText("q", 1), faux.Text("a")}, ErrNothingToResume},
		{"user tail", []provider.Message{provider.UserText("q", 1)}, nil},
		{"toolResult tail", []provider.Message{provider.UserText("q", 1), call("c1", "echo", nil),
			{Role: provider.RoleToolResult, ToolCallID: "c1", ToolName: "echo", Content: []provider.Block{provider.Text("r")}}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := faux.New(faux.Text("continued"))
			a, _ := newTestAgent(t, p)
			a.ReplaceMessages(tc.history)
			err := a.Continue(context.Background())
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Continue error = %v, want %v", err, tc.wantErr)
			}
			wantCalls := 1
			if tc.wantErr != nil {
				wantCalls = 0
			}
			if p.Calls() != wantCalls {
				t.Fatalf("model calls = %d, want %d", p.Calls(), wantCalls)
			}
		})
	}
}

func TestContinueFromAssistantTailDeliversQueuedMessage(t *testing.T) {
	p := faux.New(faux.Text("answer"))
	a, _ := newTestAgent(t, p)
	a.ReplaceMessages([]provider.Message{provider.UserText("q", 1), faux.Text("a")})
	a.FollowUp(provider.UserText("more", 2))
	if err := a.Continue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := roles(a.State().Messages); !reflect.DeepEqual(got, []string{"user", "assistant", "user", "assistant"}) {
		t.Fatalf("messages %v", got)
	}
}

func TestPromptWhileRunningRefuses(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	tool := testTool("wait", func(context.Context, map[string]any) (tools.Result, error) {
		close(started)
		<-release
		return tools.TextResult("ok"), nil
	})
	a, _ := newTestAgent(t, faux.New(call("c1", "wait", map[string]any{"x": 1}), faux.Text("done")), tool)
	errc := make(chan error, 1)
	go func() { errc <- a.Prompt(context.Background(), provider.UserText("first", 1)) }()
	<-started
	err := a.Prompt(context.Background(), provider.UserText("second", 2))
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "steer") {
		t.Fatalf("second Prompt error = %v", err)
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// A tool stuck where its context cannot reach (a system call that waits on a pipe or a hung
// mount) must not keep the run, and so RPC's abort, from answering: the loop leaves it behind.
func TestAbortLeavesBehindAToolThatDoesNotStop(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	stuck := testTool("stuck", func(ctx context.Context, _ map[string]any) (tools.Result, error) {
		close(started)
		<-release // ignores ctx
		return tools.TextResult("late"), nil
	})
	a, _ := newTestAgent(t, faux.New(call("c1", "stuck", map[string]any{"x": 1}), faux.Text("never")), stuck)
	go func() { <-started; a.Abort() }()
	ended := make(chan struct{})
	go func() { defer close(ended); prompt(t, a, "go") }()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the run has not ended 30s after the abort: the stuck tool holds it")
	}
	res := lastToolResults(a)[0]
	if text := res.TextContent(); !res.IsError || !strings.Contains(text, "did not stop") || !strings.Contains(text, "aborted") {
		t.Fatalf("result = %+v", res)
	}
}
