package main

// printrefusals.go says on stderr, in print and JSON modes, each tool call pi refused: the
// model is told why, but the user reading only the answer would not know a call was refused.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"pi/agent"
	"pi/provider"
)

// watchRefusals writes one stderr line per refused tool call of ag's runs until the returned
// function is called; mode is the front end's name ("print", "JSON").
func watchRefusals(ag *agent.Agent, mode string, stderr io.Writer) (stop func()) {
	return ag.Subscribe(func(_ context.Context, ev agent.Event) {
		if ev.Type != agent.EvToolExecutionEnd || !ev.IsError || ev.Result == nil {
			return
		}
		if line, ok := refusalLine(mode, ev.ToolName, resultText(ev.Result.Content)); ok {
			fmt.Fprintln(stderr, line)
		}
	})
}

// refusalLine is the stderr line for a tool result that says the call was not run (a
// permission mode or rule, a hook); false for any other failure, which the tool reported.
func refusalLine(mode, tool, result string) (string, bool) {
	_, why, refused := strings.Cut(result, " was not run: ")
	if !refused {
		if !strings.Contains(result, "was blocked by a hook") {
			return "", false
		}
		why = "a hook blocked it"
	}
	// The first sentence says why; what follows is advice to the model.
	why = provider.OneLine(why, 200)
	for _, end := range []string{". ", "; the user can pass --yes"} {
		if cut := strings.Index(why, end); cut >= 0 {
			why = why[:cut]
		}
	}
	why = strings.TrimSuffix(why, ".")
	advice := "--yes would not change that: it answers only the questions pi would ask"
	if strings.Contains(why, "nobody to ask") || strings.Contains(why, "nobody can be asked") {
		advice = "pass --yes to allow what pi would ask about, or allow it in [permissions] of pi.toml"
	}
	return fmt.Sprintf("pi: %s mode refused a call to %s: %s; %s", mode, tool, why, advice), true
}

func resultText(blocks []provider.Block) string {
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == provider.BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
