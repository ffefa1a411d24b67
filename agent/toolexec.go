package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"pi/provider"
	"pi/tools"
)

// callState follows one tool call from preflight to its result message.
type callState struct {
	call   ToolCall
	tool   tools.Tool
	result tools.Result
	// done is set once preflight failed or execution finished; a result is final then.
	done bool
	// retry is set when the arguments were asked for again (argretry.go).
	retry *argumentRetry
	// after are the turns of the earlier calls of the batch that change a file this one
	// changes; turn is closed when this call is finished (see reserveFileTurns).
	after []chan struct{}
	turn  chan struct{}
}

// executeToolCalls runs one assistant message's tool calls and returns their result messages in
// source order, and whether every result asked to terminate the run.
func (a *Agent) executeToolCalls(ctx context.Context, assistant *provider.Message, blocks []provider.Block, sent sentRequest) ([]provider.Message, bool) {
	a.mu.Lock()
	active := a.state.Tools
	a.mu.Unlock()
	calls := make([]*callState, len(blocks))
	sequential := false
	for i, b := range blocks {
		calls[i] = &callState{call: ToolCall{ID: b.ID, Name: b.Name, Args: b.Arguments, Assistant: assistant},
			tool: findTool(active, b.Name)}
		if t := calls[i].tool; t != nil {
			sequential = sequential || t.Info().Sequential
			calls[i].call.ReadOnly = t.Info().ReadOnly
		}
	}
	if assistant.StopReason == provider.StopLength {
		for _, c := range calls {
			a.startCall(ctx, c)
			c.result, c.done = tools.ErrorResult(fmt.Sprintf("Tool call %q was not run: the reply reached the output token limit, "+
				"so its arguments may be cut off. Send the call again with complete arguments.", c.call.Name)), true
			a.endCall(ctx, c)
		}
		return a.resultMessages(ctx, calls), false
	}
	if sequential {
		results := make([]provider.Message, 0, len(calls))
		for i, c := range calls {
			a.startCall(ctx, c)
			a.preflight(ctx, &blocks[i], c, sent)
			if !c.done {
				a.execute(ctx, c)
			}
			a.endCall(ctx, c)
			results = append(results, a.resultMessages(ctx, calls[i:i+1])...)
		}
		return results, allTerminate(calls)
	}
	a.runParallel(ctx, blocks, calls, sent)
	return a.resultMessages(ctx, calls), allTerminate(calls)
}

// runParallel does preflight in source order, then executes the prepared calls together;
// tool_execution_end events arrive in completion order.
func (a *Agent) runParallel(ctx context.Context, blocks []provider.Block, calls []*callState, sent sentRequest) {
	var ready []*callState
	lastTurn := map[string]chan struct{}{}
	for i, c := range calls {
		a.startCall(ctx, c)
		a.preflight(ctx, &blocks[i], c, sent)
		if c.done {
			a.endCall(ctx, c)
		} else {
			reserveFileTurns(c, lastTurn)
			ready = append(ready, c)
		}
	}
	if len(ready) == 1 { // no goroutine for the common single call
		a.execute(ctx, ready[0])
		a.endCall(ctx, ready[0])
		return
	}
	var wg sync.WaitGroup
	for _, c := range ready {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if waitFileTurn(ctx, c) {
				a.execute(ctx, c)
			}
			if c.turn != nil {
				close(c.turn)
			}
			a.endCall(ctx, c)
		}()
	}
	wg.Wait()
}

// reserveFileTurns queues c behind the earlier calls of the batch that change a file it changes,
// so that calls on one file run in the order the model sent them (an edit and then a write of
// one file would otherwise race). It runs during preflight, in source order, before any call
// starts; lastTurn maps each file to the turn of the latest call queued on it.
func reserveFileTurns(c *callState, lastTurn map[string]chan struct{}) {
	changer, ok := c.tool.(tools.FileChanger)
	if !ok {
		return
	}
	for _, key := range changer.ChangedFiles(c.call.Args) {
		if key == "" {
			continue
		}
		if c.turn == nil {
			c.turn = make(chan struct{})
		}
		if prev := lastTurn[key]; prev != nil && !slices.Contains(c.after, prev) {
			c.after = append(c.after, prev)
		}
		lastTurn[key] = c.turn
	}
}

// waitFileTurn waits until the earlier calls on c's files have finished; false, with an error
// result in c, when the run was aborted first.
func waitFileTurn(ctx context.Context, c *callState) bool {
	for _, prev := range c.after {
		select {
		case <-prev:
		case <-ctx.Done():
			c.result, c.done = tools.ErrorResult("Tool call aborted: the user interrupted the run while it waited for an earlier change to the same file."), true
			return false
		}
	}
	return true
}

func (a *Agent) startCall(ctx context.Context, c *callState) {
	a.mu.Lock()
	a.state.PendingToolCalls[c.call.ID] = true
	a.mu.Unlock()
	a.emit(ctx, Event{Type: EvToolExecutionStart, ToolCallID: c.call.ID, ToolName: c.call.Name, Args: c.call.Args})
}

func (a *Agent) endCall(ctx context.Context, c *callState) {
	if c.retry != nil {
		c.result.Details = withRetryDetails(c.result.Details, c.retry)
	}
	a.mu.Lock()
	delete(a.state.PendingToolCalls, c.call.ID)
	a.mu.Unlock()
	a.emit(ctx, Event{Type: EvToolExecutionEnd, ToolCallID: c.call.ID, ToolName: c.call.Name,
		Result: &c.result, IsError: c.result.IsError})
}

// preflight looks the tool up, validates and repairs its arguments and asks the before-hook.
// A failure leaves c done with an error result.
func (a *Agent) preflight(ctx context.Context, block *provider.Block, c *callState, sent sentRequest) {
	fail := func(text string) { c.result, c.done = tools.ErrorResult(text), true }
	switch {
	case ctx.Err() != nil:
		fail("Tool call aborted: the user interrupted the run before it started.")
		return
	case c.tool == nil:
		fail(fmt.Sprintf("There is no tool named %q. Available tools: %s.", c.call.Name, a.toolNames()))
		return
	}
	schema, err := a.schemaFor(c.tool)
	if err != nil {
		fail(fmt.Sprintf("Tool %q cannot be called: its parameter schema is broken: %v", c.call.Name, err))
		return
	}
	args, failure := a.argumentsFor(ctx, block, c, schema, sent)
	if failure != "" {
		fail(failure)
		return
	}
	if a.hooks.BeforeToolCall == nil {
		c.call.Args = args
		return
	}
	// The hook may change the arguments in place; the assistant message in the transcript
	// must keep what the model actually sent.
	c.call.Args = copyValue(args).(map[string]any)
	decision, err := a.hooks.BeforeToolCall(ctx, &c.call)
	switch {
	case err != nil:
		fail(fmt.Sprintf("Tool %q was not run: a hook failed: %v", c.call.Name, err))
	case decision.Block:
		reason := decision.Reason
		if reason == "" {
			reason = fmt.Sprintf("Tool %q was blocked by a hook.", c.call.Name)
		}
		fail(reason)
	}
}

// execute runs a prepared call. Panics, errors and aborts all become error results.
func (a *Agent) execute(ctx context.Context, c *callState) {
	var settled atomic.Bool
	onUpdate := func(partial tools.Result) {
		if settled.Load() {
			return // updates after the tool returned are stale
		}
		partial = a.redact(partial)
		a.emit(ctx, Event{Type: EvToolExecutionUpdate, ToolCallID: c.call.ID, ToolName: c.call.Name,
			Args: c.call.Args, Result: &partial})
	}
	res, err := executeOrLeave(ctx, c, onUpdate)
	settled.Store(true)
	switch {
	case ctx.Err() != nil && (err != nil || !res.IsError):
		res = tools.Result{Content: append(res.Content, provider.Text("Tool call aborted: the user interrupted it.")),
			Details: res.Details, IsError: true}
	case err != nil:
		res = tools.ErrorResult(err.Error())
	}
	c.result, c.done = a.redact(res), true
	if a.hooks.AfterToolCall == nil {
		return
	}
	override, err := a.hooks.AfterToolCall(ctx, &c.call, c.result)
	if err != nil {
		c.result = tools.ErrorResult(fmt.Sprintf("A hook failed after tool %q ran: %v", c.call.Name, err))
		return
	}
	applyOverride(&c.result, override)
	c.result = a.redact(c.result)
}

func (a *Agent) redact(r tools.Result) tools.Result {
	if a.hooks.Redact == nil {
		return r
	}
	return a.hooks.Redact(r)
}

// toolStopGrace is how long an aborted run waits for a tool to return once its context is
// cancelled. A tool stuck past it, where no context reaches (a system call on a hung mount), is
// left behind, so that the run ends and an abort is answered.
const toolStopGrace = time.Second

// executeOrLeave runs the call on its own goroutine, and gives up on it toolStopGrace after ctx
// ends; its result, should it come, is dropped.
func executeOrLeave(ctx context.Context, c *callState, onUpdate func(tools.Result)) (tools.Result, error) {
	type outcome struct {
		res tools.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := safeExecute(ctx, c, onUpdate)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
	}
	grace := time.NewTimer(toolStopGrace)
	defer grace.Stop()
	select {
	case o := <-done:
		return o.res, o.err
	case <-grace.C:
		return tools.TextResult(fmt.Sprintf("The tool did not stop within %v of the abort and was left behind; what it still does is not reported.",
			toolStopGrace)), nil
	}
}

func safeExecute(ctx context.Context, c *callState, onUpdate func(tools.Result)) (res tools.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %q crashed: %v", c.call.Name, r)
		}
	}()
	return c.tool.Execute(ctx, c.call.ID, c.call.Args, onUpdate)
}

// copyValue deep-copies a value decoded from JSON.
func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = copyValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = copyValue(x)
		}
		return out
	}
	return v
}

func applyOverride(r *tools.Result, o ResultOverride) {
	if o.Content != nil {
		r.Content = o.Content
	}
	if o.Details != nil {
		r.Details = o.Details
	}
	if o.IsError != nil {
		r.IsError = *o.IsError
	}
	if o.Usage != nil {
		r.Usage = o.Usage
	}
	if o.Terminate != nil {
		r.Terminate = *o.Terminate
	}
}

// resultMessages turns finished calls into toolResult messages, appends them to the transcript
// and emits their message events, in the order given.
func (a *Agent) resultMessages(ctx context.Context, calls []*callState) []provider.Message {
	out := make([]provider.Message, len(calls))
	for i, c := range calls {
		out[i] = toolResultMessage(c)
		a.emit(ctx, Event{Type: EvMessageStart, Message: &out[i]})
		a.endMessage(ctx, &out[i])
	}
	return out
}

func toolResultMessage(c *callState) provider.Message {
	m := provider.Message{Role: provider.RoleToolResult, ToolCallID: c.call.ID, ToolName: c.call.Name,
		Content: c.result.Content, IsError: c.result.IsError, Usage: c.result.Usage, Timestamp: time.Now().UnixMilli()}
	if m.Content == nil {
		m.Content = []provider.Block{}
	}
	if c.result.Details != nil {
		if raw, ok := c.result.Details.(json.RawMessage); ok {
			m.Details = raw
		} else if data, err := json.Marshal(c.result.Details); err == nil {
			m.Details = data
		}
	}
	return m
}

func allTerminate(calls []*callState) bool {
	for _, c := range calls {
		if !c.result.Terminate {
			return false
		}
	}
	return len(calls) > 0
}

func findTool(active []tools.Tool, name string) tools.Tool {
	for _, t := range active {
		if t.Info().Name == name {
			return t
		}
	}
	return nil
}

func (a *Agent) toolNames() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, 0, len(a.state.Tools))
	for _, t := range a.state.Tools {
		names = append(names, t.Info().Name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// schemaFor compiles a tool's parameter schema once per tool.
func (a *Agent) schemaFor(t tools.Tool) (*tools.Schema, error) {
	a.mu.Lock()
	s, ok := a.schemas[t]
	a.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := tools.CompileSchema(t.Info().Parameters)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.schemas[t] = s
	a.mu.Unlock()
	return s, nil
}
