package lua

import (
	"context"
	"sync"
	"testing"
	"time"

	"pi/tools"
)

// TestConcurrentUseAndReload hammers one runtime from many goroutines while it reloads: no
// deadlock, no race (run with -race), every call returns.
func TestConcurrentUseAndReload(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `
pi.on("tool_call", function(ev) ev.input.n = (ev.input.n or 0) + 1 end)
pi.on("message_end", function(ev) local _ = ev.message.role end)
pi.register_tool{name = "t", execute = function(args, ctx) ctx.update("x") return pi.exec("true").stdout end}`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				r.ToolCall(ctx, "bash", "id", map[string]any{"command": "ls"})
				r.Emit(ctx, "message_end", map[string]any{"message": map[string]any{"role": "assistant"}})
				for _, tool := range r.Tools() {
					tool.Execute(ctx, "c", map[string]any{}, func(tools.Result) {})
				}
			}
		}()
	}
	for i := 0; i < 3; i++ {
		if err := r.Reload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("took too long")
	}
}
