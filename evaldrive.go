package main

// evaldrive.go is what `pi eval` needs of the agent. Package eval owns the tasks, checks and
// reports but must not import this package, so main hands eval.Main these two functions.

import (
	"bytes"
	"context"
	"strings"
	"time"

	"pi/agent"
	"pi/config"
	"pi/eval"
	"pi/provider"
)

// driveEval runs one eval task's prompt with an agent set up as for any other mode, in the
// task's scratch copy, and calls r.OnTurn at the end of every turn; its verdict stops the run.
func driveEval(ctx context.Context, r eval.Run) (eval.Outcome, error) {
	// turn_end comes at the end of every turn, a failed one too; the stop hook follows it on
	// the same goroutine except after a failed turn, which ends the run anyway. So the event
	// asks OnTurn, and the hook passes its verdict on.
	stop := false
	o := &cliOptions{model: r.Model, cwd: r.Cwd, sessionDir: r.SessionDir, toolList: strings.Join(r.Tools, ","),
		permissions: config.ModeAuto, fauxScript: r.FauxScript, stopAfterTurn: func(context.Context, *provider.Message, []provider.Message) bool { return stop }}
	var logs bytes.Buffer // setup warnings would repeat for every run; eval shows them on failure
	h, err := setup(ctx, o, false, &logs)
	if err != nil {
		return eval.Outcome{}, &eval.SetupError{Err: err, Log: logs.String()}
	}
	defer h.close()
	unsubscribe := h.agent.Subscribe(func(_ context.Context, ev agent.Event) {
		if ev.Type == agent.EvTurnEnd && ev.Message != nil {
			stop = r.OnTurn(ev.Message, ev.ToolResults)
		}
	})
	defer unsubscribe()
	start := time.Now()
	err = h.Send(ctx, Input{Text: r.Prompt, Source: sourceInteractive})
	return eval.Outcome{Messages: h.agent.State().Messages, API: h.agent.Model().API, Wall: time.Since(start),
		Confine: h.shell.confine}, err
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
