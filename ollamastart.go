package main

// ollamastart.go is what pi does at start for a new user whose local Ollama is not ready:
// installed but not serving (start `ollama serve`, for this run or left running), or serving
// without a model (pull one that fits this machine's memory, with a progress bar). The terminal
// UI asks in a dialog; print, JSON and RPC modes, where nobody can be asked, say in one stderr
// line what to run, unless [ollama] start makes the start automatic. provider/ollamasetup does
// the work; this file decides and asks.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"pi/config"
	"pi/live"
	"pi/provider"
	"pi/provider/ollamasetup"
	"pi/tui"
)

// localOllama is the Ollama server the session's model would come from: discovery says pi
// picks the model there, model is the one pi.toml or --model names otherwise.
type localOllama struct {
	host, model string
	discovery   bool
	startMode   string
}

// ollamaFor is the Ollama server o's model would come from, if any.
func ollamaFor(o *cliOptions, cfg *config.Config) (localOllama, bool) {
	if o.fauxScript != "" || o.providerName == "faux" {
		return localOllama{}, false
	}
	spec := o.model // as live.Options resolves it
	if o.providerName != "" && !strings.Contains(spec, "/") {
		spec = strings.TrimSuffix(o.providerName+"/"+spec, "/")
	}
	host, model, ok := cfg.OllamaModel(spec)
	return localOllama{host: host, model: model, discovery: model == "", startMode: cfg.Ollama.StartMode()}, ok
}

// prepareOllama runs before the session is built where nobody can be asked (print, JSON and
// RPC modes). It starts a server that is installed but not running when [ollama] start says
// so, and otherwise says in one line what to run; the exit code is 0 to go on.
func prepareOllama(ctx context.Context, o *cliOptions, starter *ollamasetup.Starter, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		return 0
	}
	cfg, err := config.Load(piHomeDir(), cwd, live.ProjectTrusted(o.trust, piHomeDir(), cwd))
	if err != nil {
		return 0 // the session reports it
	}
	local, ok := ollamaFor(o, cfg)
	if !ok || local.startMode == config.OllamaStartNever {
		return 0
	}
	if !local.discovery && ollamasetup.Listening(ctx, local.host) {
		return 0 // the named model's server is up: the run needs no model list (a dial, not /api/tags)
	}
	c := ollamasetup.Detect(ctx, local.host, exec.LookPath, nil)
	if c.State == ollamasetup.NotServing {
		if local.startMode == config.OllamaStartAsk {
			return giveUp(cfg, stderr, fmt.Sprintf("Ollama is installed (%s) but not serving on %s: run `ollama serve`, "+
				"or set [ollama] start = \"child\" in %s/pi.toml to have pi start it", c.Binary, c.Host, piHomeDir()))
		}
		srv, err := starter.Start(ctx, c, local.startMode == config.OllamaStartDetached)
		if err != nil {
			return giveUp(cfg, stderr, err.Error())
		}
		fmt.Fprintln(stderr, "pi:", srv.Started())
		c = ollamasetup.Detect(ctx, local.host, exec.LookPath, nil)
	}
	if c.State == ollamasetup.Serving && len(c.Models) == 0 && local.discovery {
		s, why := ollamasetup.SuggestHere()
		return giveUp(cfg, stderr, fmt.Sprintf("the Ollama server at %s has no model yet: run `ollama pull %s` (%s), "+
			"or name a model in pi.toml", c.Host, s.Model, why))
	}
	return 0
}

// giveUp says why pi cannot go on, after the warnings about pi.toml the session would have
// given (a key an untrusted project may not set can be why no model is named), and is exit 1.
func giveUp(cfg *config.Config, stderr io.Writer, why string) int {
	for _, w := range cfg.Warnings {
		fmt.Fprintln(stderr, "pi: warning:", w)
	}
	fmt.Fprintln(stderr, "pi:", why)
	return 1
}

// ollamaDialog is the terminal UI's start dialog for o's model (see offerOllama).
func ollamaDialog(o *cliOptions, cfg *config.Config, starter *ollamasetup.Starter) func(*interactive) {
	local, _ := ollamaFor(o, cfg)
	return func(ic *interactive) { ic.offerOllama(local, starter) }
}

// offerOllama is the terminal UI's start dialog: when the session has no model because its
// local Ollama is not serving, or serves no model, it offers to start the server and to pull
// a model that fits, then takes the model the session would have started with.
func (ic *interactive) offerOllama(local localOllama, starter *ollamasetup.Starter) {
	if ic.h.ModelProblem() == "" || local.host == "" || local.startMode == config.OllamaStartNever {
		return
	}
	c := ollamasetup.Detect(ic.ctx, local.host, exec.LookPath, nil)
	if c.State == ollamasetup.NotServing {
		if !ic.startOllama(c, local.startMode, starter) {
			return
		}
		c = ollamasetup.Detect(ic.ctx, local.host, exec.LookPath, nil)
	}
	if c.State != ollamasetup.Serving {
		return
	}
	switch {
	case len(c.Models) == 0 && local.discovery:
		s, why := ollamasetup.SuggestHere()
		if !ic.pullOllama(c, s.Model, fmt.Sprintf("The Ollama server at %s has no model yet; %s fits this machine (%s).", c.Host, s.Model, why)) {
			return
		}
	case !local.discovery && !listsModel(c.Models, local.model):
		if !ic.pullOllama(c, local.model, fmt.Sprintf("The Ollama server at %s does not have %s, the model pi is set to use.", c.Host, local.model)) {
			return
		}
	}
	ic.useStartModel()
}

// listsModel reports whether the server lists model ("name" is its "name:latest").
func listsModel(models []string, model string) bool {
	want := provider.Model{API: "ollama", ID: model}
	return slices.ContainsFunc(models, func(m string) bool { return want.Same(provider.Model{API: "ollama", ID: m}) })
}

// startOllama starts the server as [ollama] start says, asking first unless it says how.
func (ic *interactive) startOllama(c ollamasetup.Check, mode string, starter *ollamasetup.Starter) bool {
	detached := mode == config.OllamaStartDetached
	if mode == config.OllamaStartAsk {
		ic.ui.Notify(tui.LevelInfo, c.Advice())
		i, err := ic.ui.Select(ic.ctx, "Start ollama serve?", []string{
			"Start ollama serve for this run (stopped when pi exits)",
			"Start ollama serve and leave it running",
			"Not now"})
		if err != nil || i == 2 {
			ic.ui.Notify(tui.LevelInfo, "Ollama not started: run `ollama serve` (or set [ollama] start in pi.toml), then pick a model with /model")
			return false
		}
		detached = i == 1
	}
	ic.ui.SetStatus("starting ollama serve…")
	srv, err := starter.Start(ic.ctx, c, detached)
	ic.ui.SetStatus("")
	if err != nil {
		ic.report(err)
		return false
	}
	ic.ui.Notify(tui.LevelInfo, srv.Started())
	return true
}

// pullOllama says why, asks, and pulls model, its progress on the status line.
func (ic *interactive) pullOllama(c ollamasetup.Check, model, why string) bool {
	ic.ui.Notify(tui.LevelInfo, why)
	i, err := ic.ui.Select(ic.ctx, "Pull "+model+"?", []string{"Pull " + model, "Not now"})
	if err != nil || i != 0 {
		ic.ui.Notify(tui.LevelInfo, "no model pulled: run `ollama pull "+model+"`, then pick it with /model")
		return false
	}
	ic.ui.SetStatus("pulling " + model + "…")
	err = ollamasetup.Pull(ic.ctx, c.Host, model, nil, func(p ollamasetup.Progress) {
		ic.ui.SetStatus(ollamasetup.Bar(p, 72))
	})
	ic.ui.SetStatus("")
	if err != nil {
		ic.report(err)
		return false
	}
	ic.ui.Notify(tui.LevelInfo, "pulled "+model)
	return true
}

// useStartModel moves the session onto the model it would have started with, now that the
// server answers with one.
func (ic *interactive) useStartModel() {
	m, err := ic.h.ResolveModelAgain(ic.ctx)
	if err != nil {
		ic.ui.Notify(tui.LevelWarning, "No model yet: "+err.Error())
		return
	}
	msg := "model: " + m.Label()
	if picked := ic.h.PickedModel(); picked != "" {
		msg = picked + "; /model picks another"
	}
	ic.ui.Notify(tui.LevelInfo, msg)
	ic.updateFooter()
}
