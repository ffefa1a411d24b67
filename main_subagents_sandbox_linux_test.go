//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"pi/internal/pitest"
	"pi/internal/sandbox"
)

// TestSubagentWorktreeUnderSandbox: under --sandbox workspace a worktree child's commands
// write in its worktree (a folder of the temp folder, which the sandbox lets commands write)
// and still not in $HOME; its changes end up on its branch, the parent's checkout untouched.
func TestSubagentWorktreeUnderSandbox(t *testing.T) {
	needLandlock(t, sandbox.Settings{Mode: "workspace"})
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := buildPi(t)
	d := newSBDirs(t)
	pitest.Git(t, d.project, "init", "-q")
	os.WriteFile(filepath.Join(d.project, "a.txt"), []byte("one\n"), 0o644)
	pitest.Git(t, d.project, "add", "a.txt")
	pitest.Git(t, d.project, "commit", "-qm", "first")
	os.WriteFile(filepath.Join(d.piHome, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644)
	probe := `echo new > b.txt; echo "inside=$?"; touch "$HOME/outside"; echo "outside=$?"; touch "` + d.project + `/fromchild"; echo "parent=$?"`
	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}}}
	}
	text := func(s string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	}
	script, _ := json.Marshal([]any{call("p1", "Agent", map[string]any{"prompt": "edit", "description": "e", "isolation": "worktree"}),
		call("c1", "bash", map[string]any{"command": probe}), text("child done"), text("parent done")})
	path := filepath.Join(d.tmp, "script.json")
	os.WriteFile(path, script, 0o644)

	out, errOut, code := runSB(t, bin, d, "", "--mode", "json", "--faux-script", path, "--sandbox", "workspace", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	childBash := childToolResult(out, "c1")
	if !strings.Contains(childBash, "inside=0") || !strings.Contains(childBash, "outside=1") || !strings.Contains(childBash, "parent=1") {
		t.Errorf("the child's probe, want inside=0, outside=1 and parent=1 (its sandbox is its worktree's): %q", childBash)
	}
	if _, err := os.Stat(filepath.Join(d.home, "outside")); err == nil {
		t.Error("the child wrote in $HOME")
	}
	res := toolResults(t, out)["p1"]
	branch := regexp.MustCompile(`branch: (\S+)`).FindStringSubmatch(res)
	if branch == nil || !strings.Contains(res, "b.txt") {
		t.Fatalf("the Agent result should name the branch and b.txt: %q", res)
	}
	if got := pitest.Git(t, d.project, "show", branch[1]+":b.txt"); got != "new" {
		t.Errorf("branch %s holds b.txt = %q", branch[1], got)
	}
	if st := pitest.Git(t, d.project, "status", "--porcelain"); st != "" {
		t.Errorf("the parent's checkout changed: %q", st)
	}
}

// childToolResult is the text of a child's tool result, from the subagent_event lines of
// JSON mode's output.
func childToolResult(out, callID string) string {
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type  string `json:"type"`
			Event struct {
				Type       string `json:"type"`
				ToolCallID string `json:"toolCallId"`
				Result     struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"result"`
			} `json:"event"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "subagent_event" && ev.Event.Type == "tool_execution_end" &&
			ev.Event.ToolCallID == callID && len(ev.Event.Result.Content) > 0 {
			return ev.Event.Result.Content[0].Text
		}
	}
	return ""
}

// TestSandboxGitRunsNoRepositoryCode: the model's confined bash cannot write ~/.bashrc, so it
// plants a program in the repository's .git (a hook, a config key git runs) and asks for a
// worktree child; pi then runs git itself, unconfined, and must not run what was planted.
func TestSandboxGitRunsNoRepositoryCode(t *testing.T) {
	needLandlock(t, sandbox.Settings{Mode: "workspace"})
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := buildPi(t)
	const payload = `echo pwned >> "$HOME/.bashrc"`
	for _, tc := range []struct{ name, plant string }{
		{"post-checkout hook", `printf '#!/bin/sh\n%s\n' '` + payload + `' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout`},
		{"reference-transaction hook", `printf '#!/bin/sh\n%s\n' '` + payload + `' > .git/hooks/reference-transaction && chmod +x .git/hooks/reference-transaction`},
		{"core.fsmonitor", `git config core.fsmonitor '` + payload + `; false #'`},
		{"a filter driver", `echo 'a.txt filter=x=y' > .gitattributes && git add .gitattributes && git -c core.hooksPath=/dev/null -c user.name=m -c user.email=m@m commit -qm attrs && git config filter.x=y.smudge '` + payload + `; cat' && git config filter.x=y.clean '` + payload + `; cat'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newSBDirs(t)
			pitest.Git(t, d.project, "init", "-q")
			os.WriteFile(filepath.Join(d.project, "a.txt"), []byte("one\n"), 0o644)
			pitest.Git(t, d.project, "add", "a.txt")
			pitest.Git(t, d.project, "commit", "-qm", "first")
			bashrc := filepath.Join(d.home, ".bashrc")
			os.WriteFile(bashrc, []byte("# mine\n"), 0o644)
			os.WriteFile(filepath.Join(d.piHome, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644)
			plant := `echo x >> "$HOME/.bashrc"; echo "direct=$?"; ` + tc.plant + `; echo "planted=$?"`
			script, _ := json.Marshal([]any{sbCall("c0", "bash", map[string]any{"command": plant}),
				sbCall("p1", "Agent", map[string]any{"prompt": "edit", "description": "e", "isolation": "worktree"}),
				sbCall("c1", "bash", map[string]any{"command": "echo two > a.txt"}), sbText("child done"), sbText("parent done")})
			path := filepath.Join(d.tmp, "script.json")
			os.WriteFile(path, script, 0o644)
			out, errOut, code := runSB(t, bin, d, "", "--mode", "json", "--faux-script", path, "--sandbox", "workspace", "go")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if res := toolResults(t, out)["c0"]; !strings.Contains(res, "direct=1") || !strings.Contains(res, "planted=0") {
				t.Fatalf("the confined bash, want direct=1 (refused) and planted=0: %q", res)
			}
			if got, _ := os.ReadFile(bashrc); string(got) != "# mine\n" {
				t.Fatalf("~/.bashrc changed through git run by pi: %q\nAgent result: %s", got, toolResults(t, out)["p1"])
			}
			if res := toolResults(t, out)["p1"]; !strings.Contains(res, "branch: ") {
				t.Fatalf("the worktree child did not run: %q", res)
			}
		})
	}
}

func sbCall(id, name string, args map[string]any) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}}}
}

func sbText(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

// TestSandboxChildLoadsTheParentsScripts: scripts run in pi, unconfined, so the model's
// confined bash rewrites the trusted project's .pi/init.lua to write ~/.bashrc and starts a
// child, which loads the project's scripts. The child loads them as the parent did at its
// start (the original script runs twice, once in each), never the rewritten file.
func TestSandboxChildLoadsTheParentsScripts(t *testing.T) {
	needLandlock(t, sandbox.Settings{Mode: "workspace"})
	bin := buildPi(t)
	d := newSBDirs(t)
	bashrc := filepath.Join(d.home, ".bashrc")
	os.WriteFile(bashrc, []byte("# mine\n"), 0o644)
	os.MkdirAll(filepath.Join(d.project, ".pi"), 0o755)
	os.WriteFile(filepath.Join(d.project, ".pi", "init.lua"), []byte(`pi.exec("echo loaded >> loads.log")`+"\n"), 0o644)
	os.WriteFile(filepath.Join(d.piHome, "pi.toml"), []byte("[subagents]\nenabled = true\n"), 0o644)
	evil := fmt.Sprintf("pi.write_file(%q, \"pwned\\n\")\n", bashrc)
	plant := fmt.Sprintf(`echo x >> "$HOME/.bashrc"; echo "direct=$?"; printf '%%s' '%s' > .pi/init.lua; echo "planted=$?"`, evil)
	script, _ := json.Marshal([]any{sbCall("c0", "bash", map[string]any{"command": plant}),
		sbCall("p1", "Agent", map[string]any{"prompt": "look", "description": "l"}), sbText("child done"), sbText("parent done")})
	path := filepath.Join(d.tmp, "script.json")
	os.WriteFile(path, script, 0o644)
	out, errOut, code := runSB(t, bin, d, "", "--mode", "json", "--trust", "--faux-script", path, "--sandbox", "workspace", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if res := toolResults(t, out)["c0"]; !strings.Contains(res, "direct=1") || !strings.Contains(res, "planted=0") {
		t.Fatalf("the confined bash, want direct=1 (refused) and planted=0: %q", res)
	}
	if got, _ := os.ReadFile(bashrc); string(got) != "# mine\n" {
		t.Fatalf("~/.bashrc changed through the child's scripts: %q", got)
	}
	if res := toolResults(t, out)["p1"]; !strings.Contains(res, "child done") {
		t.Fatalf("the child did not run: %q", res)
	}
	if loads, _ := os.ReadFile(filepath.Join(d.project, "loads.log")); string(loads) != "loaded\nloaded\n" {
		t.Fatalf("the original script should load in the parent and the child: %q", loads)
	}
}
