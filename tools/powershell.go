package tools

// powershell.go is pi's powershell tool: the bash tool's limits, timeouts and output handling
// with PowerShell as the shell. It is offered where pwsh or powershell is on PATH, and is the
// default shell tool on Windows.

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"

	"pi/internal/proc"
)

// PowerShell is the PowerShell on PATH (pwsh, else Windows PowerShell), or "" when there is none.
func PowerShell() string {
	for _, name := range []string{"pwsh", "powershell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Offered are the built-in tools this machine can run: every one of AllNames, but powershell
// only where PowerShell is installed.
func Offered() []string {
	var out []string
	for _, n := range AllNames() {
		if n != "powershell" || PowerShell() != "" {
			out = append(out, n)
		}
	}
	return out
}

// shellToolName is the shell tool of the default set: powershell on Windows where it is
// installed, else bash.
func shellToolName() string {
	if runtime.GOOS == "windows" && PowerShell() != "" {
		return "powershell"
	}
	return "bash"
}

func newPowerShell(env *Env) (Tool, error) {
	shell := PowerShell()
	if shell == "" {
		return nil, fmt.Errorf("tools: powershell: neither pwsh nor powershell is on PATH")
	}
	run := func(ctx context.Context, _ string, args map[string]any, onUpdate func(Result)) (Result, error) {
		spec := proc.ShellSpec{Shell: shell, ShellArgs: []string{"-NoProfile", "-NonInteractive"}}
		return runShellTool(ctx, env, spec, args, onUpdate)
	}
	return &Func{Spec: shellToolInfo(env, "powershell", "PowerShell", "a PowerShell command"), Run: run, Changes: shellChanges(env)}, nil
}
