package main

// scriptcommand.go runs a `pi <word>` that a script registered (pi.register_subcommand), such
// as the bundled checkpoints script's `pi checkpoints`: the scripts load with no session, as
// pi.toml and trust.json say, and the word's run function gets the remaining arguments.

import (
	"context"
	"errors"
	"fmt"
	"os"

	"pi/config"
	"pi/live"
	"pi/lua"
	"pi/packages"
)

func runScriptSubcommand(ctx context.Context, c invocation) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(c.stderr, "pi:", err)
		return 1
	}
	home := piHomeDir()
	cfg, err := config.Load(home, cwd, live.ProjectTrusted(false, home, cwd))
	if err != nil {
		fmt.Fprintln(c.stderr, "pi:", err)
		return 1
	}
	code, err := lua.RunSubcommand(ctx, lua.Options{PiHome: home, Cwd: cwd, Disabled: append([]string{"mcp"}, cfg.Lua.Disable...),
		Host: lua.Host{Config: cfg.ScriptConfig}, Packages: packages.Dirs(packages.Root(home, cwd, false))},
		c.word, c.args, c.stdout, c.stderr)
	if err != nil {
		if errors.Is(err, lua.ErrNoSubcommand) {
			err = fmt.Errorf("%w; is its script switched off in pi.toml's [lua] disable?", err)
		}
		fmt.Fprintln(c.stderr, "pi:", err)
	}
	return code
}
