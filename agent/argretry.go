package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"pi/provider"
	"pi/tools"
)

// DefaultArgumentRetryTimeout bounds one constrained retry of a call's arguments: the
// conversation prefix is in the server's cache, so it costs the short instruction and the
// arguments, but a write's content can be long on a CPU.
const DefaultArgumentRetryTimeout = 2 * time.Minute

// argumentRetry is what a tool result's details say of a retry, under "argumentRetry".
type argumentRetry struct {
	// Original is what the model sent: its arguments, or the text that was not JSON.
	Original any    `json:"originalArguments"`
	Error    string `json:"error"`
	// Arguments is what the retry gave, valid or not; Fixed says the tool ran with them.
	Arguments map[string]any  `json:"arguments,omitempty"`
	Fixed     bool            `json:"fixed"`
	Failure   string          `json:"failure,omitempty"` // why the retry did not help
	Usage     *provider.Usage `json:"usage,omitempty"`
	Ms        int64           `json:"durationMs"`
}

// argumentsFor returns the arguments c runs with: the model's, repaired and validated, or those
// one constrained retry gave when the model's fail. On failure it returns the text of the error
// result, the one for the model's own arguments.
func (a *Agent) argumentsFor(ctx context.Context, block *provider.Block, c *callState, schema *tools.Schema, sent sentRequest) (map[string]any, string) {
	args, problem, failure := a.checkArguments(ctx, c, schema, block.RawArguments, c.call.Args)
	if failure == "" {
		return args, ""
	}
	start := time.Now()
	reply, err := a.askArguments(ctx, c, block, problem, failure, sent)
	if errors.Is(err, provider.ErrNoConstrainedArguments) {
		return nil, failure
	}
	c.retry = &argumentRetry{Original: originalArguments(block, c.call.Args), Error: problem,
		Arguments: reply.Arguments, Usage: reply.Usage, Ms: time.Since(start).Milliseconds()}
	if err == nil {
		var again string
		if args, again, _ = a.checkArguments(ctx, c, schema, "", reply.Arguments); again != "" {
			err = fmt.Errorf("the arguments of the retry are invalid too: %s", provider.OneLine(again, 300))
		}
	}
	if err != nil {
		c.retry.Failure = err.Error()
		if ctx.Err() != nil {
			return nil, "Tool call aborted: the user interrupted the run before it started."
		}
		return nil, failure
	}
	c.retry.Fixed = true
	return args, ""
}

// checkArguments repairs and validates one set of arguments. On failure it returns what is
// wrong, for a retry's instruction, and the error result's text, for the model.
func (a *Agent) checkArguments(ctx context.Context, c *callState, schema *tools.Schema, raw string, in map[string]any) (map[string]any, string, string) {
	if raw != "" {
		return nil, "they are not valid JSON", fmt.Sprintf("The arguments of tool %q are not valid JSON. Send them again as one JSON object.\n\nArguments received:\n%s",
			c.call.Name, raw)
	}
	prepared := in
	if p, ok := c.tool.(tools.ArgumentPreparer); ok && in != nil {
		prepared = p.PrepareArguments(ctx, copyValue(in).(map[string]any))
	}
	args, err := schema.Prepare(prepared)
	if err != nil { // the model is shown what it sent
		return nil, err.Error(), tools.FormatValidationError(c.call.Name, err, in)
	}
	return args, "", ""
}

// askArguments makes the retry, if the model allows it, within its own deadline.
func (a *Agent) askArguments(ctx context.Context, c *callState, block *provider.Block, problem, result string, sent sentRequest) (provider.ArgumentsReply, error) {
	if sent.req == nil || sent.provider == nil || sent.req.Model.NoArgumentRetry {
		return provider.ArgumentsReply{}, provider.ErrNoConstrainedArguments
	}
	timeout := a.argumentRetryTimeout
	if timeout <= 0 {
		timeout = DefaultArgumentRetryTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	reply, err := provider.ConstrainedArguments(rctx, sent.provider, &provider.ArgumentsRequest{Request: sent.req,
		Tool: c.tool.Info().Def(), Reply: c.call.Assistant, Call: *block, Result: result, Problem: problem})
	if err != nil && rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		err = fmt.Errorf("asking for the arguments of %q again: no answer within %v", c.call.Name, timeout)
	}
	return reply, err
}

func originalArguments(block *provider.Block, args map[string]any) any {
	if block.RawArguments != "" {
		return block.RawArguments
	}
	if args == nil {
		return map[string]any{}
	}
	return args
}

// withRetryDetails adds the retry's record to a tool's details under "argumentRetry": into
// them when they are an object, as the only key when there are none.
func withRetryDetails(details any, r *argumentRetry) any {
	var fields map[string]json.RawMessage
	switch d := details.(type) {
	case nil:
	case json.RawMessage:
		if json.Unmarshal(d, &fields) != nil {
			return details
		}
	default:
		data, err := json.Marshal(d)
		if err != nil || json.Unmarshal(data, &fields) != nil {
			return details // details that are not an object keep their shape
		}
	}
	if fields == nil {
		fields = map[string]json.RawMessage{}
	}
	rec, err := json.Marshal(r)
	if err != nil {
		return details
	}
	fields["argumentRetry"] = rec
	out, _ := json.Marshal(fields)
	return json.RawMessage(out)
}
