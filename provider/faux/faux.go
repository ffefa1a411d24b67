// Package faux is a scripted, in-process provider for tests and demos. A script is a queue of
// steps consumed one per model call: a fixed assistant message, or a function of the request
// the "model" receives. Replies stream as realistic small deltas and honour cancellation.
//
// It must stay free of anything but the provider package: it is the stand-in for a model.
package faux

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"pi/provider"
)

// Step is one scripted reply: a provider.Message, or a Reply function.
type Step any

// Reply computes a reply from what the model was sent; tests use it to check what the model saw.
type Reply func(req *provider.Request) provider.Message

// Provider replays a script. It is safe for concurrent use.
type Provider struct {
	mu       sync.Mutex
	steps    []Step
	requests []*provider.Request

	// ChunkDelay is slept before each streamed chunk; zero streams as fast as possible.
	ChunkDelay time.Duration
	// ChunkRunes is the size of text and argument deltas in runes; 0 means 16 (about 4 tokens).
	ChunkRunes int
	// Input is what the scripted model takes ("text", "image"); nil means both.
	Input []string
}

// ModelInput is what the scripted model takes: Input, or text and images.
func (p *Provider) ModelInput() []string {
	if p.Input == nil {
		return []string{"text", "image"}
	}
	return p.Input
}

// New returns a provider that replays steps in order.
func New(steps ...Step) *Provider { return &Provider{steps: steps} }

// Append queues more steps.
func (p *Provider) Append(steps ...Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, steps...)
}

// Pending is the number of steps not consumed yet.
func (p *Provider) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.steps)
}

// Calls is the number of model calls so far.
func (p *Provider) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

// Requests returns the requests received so far, oldest first.
func (p *Provider) Requests() []*provider.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*provider.Request(nil), p.requests...)
}

// Text is a reply holding one text block.
func Text(s string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.Text(s)}, StopReason: provider.StopStop}
}

// Blocks is a reply holding the given blocks; it stops with toolUse when it calls tools.
func Blocks(blocks ...provider.Block) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: blocks, StopReason: provider.StopStop}
}

// Call is a tool-call block with the given id.
func Call(id, name string, args map[string]any) provider.Block {
	return provider.ToolCall(id, name, args)
}

// Error is a reply that fails with the given message.
func Error(msg string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, StopReason: provider.StopError, ErrorMessage: msg}
}

// Stream plays the next step.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(provider.Event)) provider.Message {
	b := provider.NewBuilder(&req.Model, emit)
	p.mu.Lock()
	p.requests = append(p.requests, req)
	var step Step
	if len(p.steps) > 0 {
		step = p.steps[0]
		p.steps = p.steps[1:]
	}
	p.mu.Unlock()

	if ctx.Err() != nil {
		return b.Fail(provider.StopAborted, "request was aborted")
	}
	reply, err := resolve(step, req)
	if err != nil {
		return b.Fail(provider.StopError, err.Error())
	}
	b.Start()
	if msg, ok := p.play(ctx, b, &reply); !ok {
		return msg
	}
	if reply.Usage != nil {
		*b.Message().Usage = *reply.Usage // scripted usage, e.g. to drive compaction in tests
	} else {
		estimateUsage(b.Message().Usage, req, &reply)
	}
	req.Model.Cost.Apply(b.Message().Usage)
	switch reply.StopReason {
	case provider.StopError, provider.StopAborted:
		return b.Fail(reply.StopReason, reply.ErrorMessage)
	case "":
		return b.Done(provider.StopStop)
	}
	return b.Done(reply.StopReason)
}

func resolve(step Step, req *provider.Request) (reply provider.Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("faux reply function panicked: %v", r)
		}
	}()
	switch s := step.(type) {
	case nil:
		return reply, fmt.Errorf("faux provider: no more scripted replies")
	case provider.Message:
		return s, nil
	case Reply:
		return s(req), nil
	case func(*provider.Request) provider.Message:
		return s(req), nil
	}
	return reply, fmt.Errorf("faux provider: unsupported step type %T", step)
}

// play streams the reply's blocks; it reports false with the aborted message when ctx ends.
func (p *Provider) play(ctx context.Context, b *provider.Builder, reply *provider.Message) (provider.Message, bool) {
	for _, blk := range reply.Content {
		var pieces []string
		var send func(string)
		switch blk.Type {
		case provider.BlockText:
			pieces, send = p.chunks(blk.Text), b.TextDelta
		case provider.BlockThinking:
			pieces, send = p.chunks(blk.Thinking), b.ThinkingDelta
		case provider.BlockToolCall:
			b.ToolCallStart(blk.ID, blk.Name)
			args, _ := json.Marshal(blk.Arguments) // decoded JSON values always marshal
			pieces, send = p.chunks(string(args)), b.ToolCallDelta
		default:
			continue
		}
		for _, piece := range pieces {
			if !p.wait(ctx) {
				return b.Fail(provider.StopAborted, "request was aborted"), false
			}
			send(piece)
		}
		b.CloseBlock()
	}
	return provider.Message{}, true
}

func (p *Provider) wait(ctx context.Context) bool {
	if p.ChunkDelay > 0 {
		t := time.NewTimer(p.ChunkDelay)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	return ctx.Err() == nil
}

// chunks splits s into pieces of ChunkRunes runes, never splitting a rune.
func (p *Provider) chunks(s string) []string {
	size := p.ChunkRunes
	if size <= 0 {
		size = 16
	}
	if len(s) <= size {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	out := make([]string, 0, len(s)/size+1)
	start, n := 0, 0
	for i := range s {
		if n == size {
			out = append(out, s[start:i])
			start, n = i, 0
		}
		n++
	}
	return append(out, s[start:])
}

// estimateUsage counts about four characters per token, as pi's faux provider does.
func estimateUsage(u *provider.Usage, req *provider.Request, reply *provider.Message) {
	in := len(req.SystemPrompt)
	for i := range req.Messages {
		for _, c := range req.Messages[i].Content {
			in += len(c.Text) + len(c.Thinking) + len(c.Data)/4
		}
	}
	out := 0
	for _, c := range reply.Content {
		out += len(c.Text) + len(c.Thinking) + len(c.Name) + 16*len(c.Arguments)
	}
	u.Input, u.Output = (in+3)/4, (out+3)/4
	u.TotalTokens = u.Input + u.Output
}
