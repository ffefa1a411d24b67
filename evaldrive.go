package main

// evaldrive.go is what `pi eval` needs of the agent. Package eval owns the tasks, checks and
// reports but must not import this package, so main hands eval.Main these two functions.

import (
	"bytes"
	"context"
	"time"

	"pi/agent"
	"pi/config"
	"pi/eval"
	"pi/live"
	"pi/provider"
	"pi/session"
)

// driveEval runs one eval task's prompt with an agent set up as for any other mode, in the
// task's scratch copy, and calls r.OnTurn at the end of every turn; its verdict stops the run.
func driveEval(ctx context.Context, r eval.Run) (eval.Outcome, error) {
	// turn_end comes at the end of every turn, a failed one too; the stop hook follows it on
	// the same goroutine except after a failed turn, which ends the run anyway. So the event
	// asks OnTurn, and the hook passes its verdict on.
	stop := false
	var logs bytes.Buffer // setup warnings would repeat for every run; eval shows them on failure
	o := live.Options{Model: r.Model, Cwd: r.Cwd, Tools: r.Tools, Permissions: config.ModeAuto, FauxScript: r.FauxScript,
		Session: session.Choice{Dir: r.SessionDir}, Stderr: &logs,
		StopAfterTurn: func(context.Context, *provider.Message, []provider.Message) bool { return stop }}
	h, err := live.New(ctx, o)
	if err != nil {
		return eval.Outcome{}, &eval.SetupError{Err: err, Log: logs.String()}
	}
	defer h.Close()
	unsubscribe := h.Agent().Subscribe(func(_ context.Context, ev agent.Event) {
		if ev.Type == agent.EvTurnEnd && ev.Message != nil {
			stop = r.OnTurn(ev.Message, ev.ToolResults)
		}
	})
	defer unsubscribe()
	start := time.Now()
	err = h.Send(ctx, live.Input{Text: r.Prompt, Source: live.SourceInteractive})
	return eval.Outcome{Messages: h.Agent().State().Messages, API: h.Agent().Model().API, Wall: time.Since(start),
		Confine: h.Confine()}, err
}

// checkEvalModel resolves pi eval's model with the user's configuration.
func checkEvalModel(ctx context.Context, model string) error {
	cfg, err := config.Load(piHomeDir(), "", false)
	if err != nil {
		return err
	}
	_, _, err = cfg.ResolveModel(ctx, model)
	return err
}
