// Package doctor is `pi doctor [MODEL]`: it measures how a model behaves behind its server —
// the window the server really gives, whether tool calls come back structured or as text (and
// in which shape), prefill and decode speed from the server's own timings, whether the server
// re-uses the prompt prefix from one turn to the next, vision, and a three-task `pi eval` run —
// and suggests the pi.toml block for that model.
//
// It owns the probes, their verdicts, the table and --json, and the suggested block. Every probe
// is bounded in time and says what it could not measure rather than guessing. It never writes
// pi.toml unless --write is given, and then only after printing the block it adds; it never
// changes a line already in the file. It reaches models through package config, as every mode
// does; the agent (for the eval run) comes from package main through Options, since nothing
// may import the root package.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"pi/config"
	"pi/eval"
)

// Options are what Main needs of the program that embeds it.
type Options struct {
	PiHome string // where pi.toml lives
	Cwd    string // the folder pi runs in (a project's pi.toml is read, its untrusted parts not applied)
	// Eval drives the three-task eval run; a nil Eval.Drive leaves it out, said so in the table.
	Eval eval.Options
}

type flags struct {
	all, jsonOut, write, noEval bool
	model                       string
}

const helpText = `pi doctor: measure how a model works with pi, and suggest its pi.toml settings

Usage:
  pi doctor [provider/model] [flags]  check one model (default: the configured one)
  pi doctor --all [flags]             check every model of the local servers

Flags:
  --json       print the findings as JSON instead of the table
  --write      add the suggested block to $PI_HOME/pi.toml (it is printed first)
  --no-eval    leave out the three-task pi eval run
  -h, --help   this help

It takes about a minute per model: each probe is bounded in time and says what it could not
measure. The manual: docs/doctor.md.
`

func parseArgs(args []string, stdout, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("pi doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&f.all, "all", false, "")
	fs.BoolVar(&f.jsonOut, "json", false, "")
	fs.BoolVar(&f.write, "write", false, "")
	fs.BoolVar(&f.noEval, "no-eval", false, "")
	// The model may come before the flags (pi doctor ollama/x --json) or after them.
	var rest []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, helpText)
			} else {
				fmt.Fprintf(stderr, "pi doctor: %v (pi doctor -h lists the flags)\n", err)
			}
			return nil, err
		}
		if args = fs.Args(); len(args) > 0 {
			rest, args = append(rest, args[0]), args[1:]
		}
	}
	switch {
	case len(rest) > 1 || len(rest) == 1 && f.all:
		err := errors.New("give one model, or --all")
		fmt.Fprintf(stderr, "pi doctor: %v\n", err)
		return nil, err
	case len(rest) == 1:
		f.model = rest[0]
	}
	return f, nil
}

// Main is `pi doctor` (args follow the word doctor). It exits 0 when every model could be
// checked, 1 when one could not (no server, no such model), 2 on usage errors.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts Options) int {
	f, err := parseArgs(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	cfg, err := config.Load(opts.PiHome, opts.Cwd, false)
	if err != nil {
		fmt.Fprintln(stderr, "pi doctor:", err)
		return 1
	}
	specs, err := modelsToCheck(ctx, cfg, f)
	if err != nil {
		fmt.Fprintln(stderr, "pi doctor:", oneLine(err))
		return 1
	}
	var reports []*Report
	code := 0
	for _, spec := range specs {
		rep, err := Check(ctx, cfg, spec, checkOptions{eval: opts.Eval, noEval: f.noEval, progress: stderr})
		if err != nil {
			fmt.Fprintln(stderr, "pi doctor:", oneLine(err))
			code = 1
			continue
		}
		reports = append(reports, rep)
		if !f.jsonOut {
			printReport(stdout, rep)
		}
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(reports)
	}
	if f.write && len(reports) > 0 {
		shown := stdout // the table showed the blocks; with --json they are shown on stderr
		if f.jsonOut {
			shown = stderr
		}
		code = max(code, writeBlocks(filepath.Join(opts.PiHome, "pi.toml"), reports, f.jsonOut, shown, stderr))
	}
	return code
}

// modelsToCheck is the one model asked for (or configured, or discovered), or with --all every
// model the local servers list.
func modelsToCheck(ctx context.Context, cfg *config.Config, f *flags) ([]string, error) {
	if !f.all {
		return []string{f.model}, nil
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var specs []string
	var errs []string
	for _, pm := range cfg.ListModels(lctx) {
		if !isLocal(pm.BaseURL) {
			continue
		}
		if pm.Err != nil {
			errs = append(errs, pm.Err.Error())
			continue
		}
		for _, m := range pm.Models {
			specs = append(specs, pm.Provider+"/"+m.ID)
		}
	}
	if len(specs) == 0 {
		if len(errs) > 0 {
			return nil, fmt.Errorf("no local model server answered: %s", errs[0])
		}
		return nil, errors.New("no local model server lists a model: start Ollama (`ollama serve`) and pull one, or name a provider in pi.toml")
	}
	return specs, nil
}

// oneLine keeps an error to its first line, for the one line a failure is.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
