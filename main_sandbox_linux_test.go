//go:build linux

package main

// sandbox_linux_test.go drives the OS sandbox through the real binary: every way a command
// starts (the bash tool, a script's pi.exec, the user's !cmd over RPC) with --sandbox
// workspace writes in the project and not in $HOME, and with network = false cannot reach a
// listener on 127.0.0.1. Each row runs without the sandbox too, where the same commands
// succeed: the rows show the sandbox, not the file modes or the test machine.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"pi/internal/sandbox"
)

// sbDirs is one run's folders, none inside another: the project, HOME, TMPDIR and PI_HOME.
type sbDirs struct{ project, home, tmp, piHome string }

func newSBDirs(t *testing.T) sbDirs {
	base := t.TempDir()
	d := sbDirs{filepath.Join(base, "project"), filepath.Join(base, "home"), filepath.Join(base, "tmp"), filepath.Join(base, "pihome")}
	for _, dir := range []string{d.project, d.home, d.tmp, d.piHome} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// runSB runs pi in d.project with stdin and returns stdout, stderr and the exit code.
func runSB(t *testing.T, bin string, d sbDirs, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdin = d.project, strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "HOME="+d.home, "TMPDIR="+d.tmp, "PI_HOME="+d.piHome)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("running pi: %v", err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// bashScript is a faux script whose model runs command with the bash tool, then stops.
func bashScript(t *testing.T, dir, command string) string {
	t.Helper()
	call, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "toolCall", "id": "c1",
		"name": "bash", "arguments": map[string]any{"command": command}}}})
	path := filepath.Join(dir, "script.json")
	os.WriteFile(path, []byte(`[`+string(call)+`,{"content":[{"type":"text","text":"done"}]}]`), 0o644)
	return path
}

// needLandlock skips where the kernel cannot confine commands as s asks; pi itself refuses
// to start there (internal/sandbox's TestNewFallback).
func needLandlock(t *testing.T, s sandbox.Settings) {
	t.Helper()
	if _, _, err := sandbox.New(s, t.TempDir(), sandbox.Options{}); err != nil {
		t.Skipf("this kernel cannot confine commands as the test needs: %v", err)
	}
}

// writeProbe tries a write outside and one inside the project and prints how each went.
const writeProbe = `touch "$HOME/outside"; echo "outside=$?"; touch ./inside; echo "inside=$?"`

func TestSandboxWritesEveryWayIn(t *testing.T) {
	needLandlock(t, sandbox.Settings{Mode: "workspace"})
	bin := buildPi(t)
	initLua := `pi.register_command{name = "probe", description = "runs the probe with pi.exec", run = function()
  local r = pi.exec(` + fmt.Sprintf("%q", writeProbe) + `)
  assert(pi.write_file("exec-result.txt", r.stdout .. r.stderr))
end}
`
	ways := []struct {
		name string
		run  func(t *testing.T, d sbDirs, sandboxArgs ...string) string // the probe's output
	}{
		{"bash tool", func(t *testing.T, d sbDirs, sandboxArgs ...string) string {
			args := append([]string{"--mode", "json", "--faux-script", bashScript(t, d.tmp, writeProbe)}, sandboxArgs...)
			out, errOut, code := runSB(t, bin, d, "", append(args, "go")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			return toolResults(t, out)["c1"]
		}},
		{"pi.exec", func(t *testing.T, d sbDirs, sandboxArgs ...string) string {
			os.MkdirAll(filepath.Join(d.project, ".pi"), 0o755)
			os.WriteFile(filepath.Join(d.project, ".pi", "init.lua"), []byte(initLua), 0o644)
			args := append([]string{"--trust", "--faux-script", bashScript(t, d.tmp, "true")}, sandboxArgs...)
			if _, errOut, code := runSB(t, bin, d, "", append(args, "-p", "/probe")...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			data, err := os.ReadFile(filepath.Join(d.project, "exec-result.txt"))
			if err != nil {
				t.Fatal(err)
			}
			return string(data)
		}},
		{"!cmd (RPC bash)", func(t *testing.T, d sbDirs, sandboxArgs ...string) string {
			return rpcBash(t, bin, d, writeProbe, sandboxArgs...)
		}},
	}
	for _, way := range ways {
		for _, confined := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, sandbox %v", way.name, confined), func(t *testing.T) {
				d := newSBDirs(t)
				var args []string
				if confined {
					args = []string{"--sandbox", "workspace"}
				}
				out := way.run(t, d, args...)
				_, statErr := os.Stat(filepath.Join(d.home, "outside"))
				if _, err := os.Stat(filepath.Join(d.project, "inside")); err != nil || !strings.Contains(out, "inside=0") {
					t.Fatalf("the write in the project failed (%v); output:\n%s", err, out)
				}
				if !confined {
					if statErr != nil || !strings.Contains(out, "outside=0") {
						t.Fatalf("unconfined, the write in $HOME failed (%v); output:\n%s", statErr, out)
					}
					return
				}
				if statErr == nil || !strings.Contains(out, "outside=1") || !strings.Contains(out, "Permission denied") {
					t.Fatalf("confined, the write in $HOME was not refused with a permission error; output:\n%s", out)
				}
			})
		}
	}
}

// rpcBash runs command with RPC mode's bash command (the user's !cmd) and returns its output.
// Standard input stays open until the answer: at its end pi aborts what still runs.
func rpcBash(t *testing.T, bin string, d sbDirs, command string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--mode", "rpc", "--faux-script", bashScript(t, d.tmp, "true")}, args...)...)
	cmd.Dir, cmd.Env = d.project, append(os.Environ(), "HOME="+d.home, "TMPDIR="+d.tmp, "PI_HOME="+d.piHome)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, _ := json.Marshal(map[string]any{"id": "b1", "type": "bash", "command": command})
	stdin.Write(append(line, '\n'))
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var resp struct {
			ID   string `json:"id"`
			Data struct {
				Output string `json:"output"`
			} `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) == nil && resp.ID == "b1" {
			return resp.Data.Output
		}
	}
	t.Fatal("pi ended without answering the bash command")
	return ""
}

// TestSandboxNoNetwork: with [sandbox] network = false in pi.toml, the bash tool cannot
// connect to a listener on 127.0.0.1, which never sees a connection; with the network
// allowed it connects. pi itself still writes its session in PI_HOME, outside the project.
func TestSandboxNoNetwork(t *testing.T) {
	needLandlock(t, sandbox.Settings{Mode: "workspace", Network: new(bool)})
	bin := buildPi(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", ln.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		name, toml string
		connected  bool
	}{
		{"network = false", "[sandbox]\nmode = \"workspace\"\nnetwork = false\n", false},
		{"network allowed", "[sandbox]\nmode = \"workspace\"\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newSBDirs(t)
			os.WriteFile(filepath.Join(d.piHome, "pi.toml"), []byte(tc.toml), 0o644)
			before := accepted.Load()
			out, errOut, code := runSB(t, bin, d, "", "--mode", "json", "--faux-script", bashScript(t, d.tmp, connect), "go")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			res := toolResults(t, out)["c1"]
			if got := strings.Contains(res, "connected"); got != tc.connected {
				t.Fatalf("connected %v, want %v; the tool said:\n%s", got, tc.connected, res)
			}
			if !tc.connected && (!strings.Contains(res, "Permission denied") || accepted.Load() != before) {
				t.Fatalf("not refused with a permission error, or the listener saw a connection; the tool said:\n%s", res)
			}
			if sessions, _ := filepath.Glob(filepath.Join(d.piHome, "sessions", "*", "*.jsonl")); len(sessions) != 1 {
				t.Fatalf("pi did not write its session in PI_HOME: %v", sessions)
			}
		})
	}
}

// TestSandboxCannotDriveServe: a confined command cannot write ~/.bashrc, so it asks pi serve,
// which runs unconfined, to: it opens a session in $HOME through `pi --mode rpc --connect` and
// runs the write there with RPC bash. The server refuses the client (no_new_privs), with the
// reason; unconfined, or with the server's --allow-no-new-privs, the same command gets through
// (the rows show the refusal, not a probe that cannot work).
func TestSandboxCannotDriveServe(t *testing.T) {
	needLandlock(t, sandbox.Settings{Mode: "workspace"})
	bin := buildPi(t)
	script, _ := filepath.Abs("testdata/server/short.json")
	for _, tc := range []struct {
		name      string
		confined  bool
		serveArgs []string
		refused   bool
	}{
		{"confined", true, nil, true},
		{"unconfined", false, nil, false},
		{"confined, --allow-no-new-privs", true, []string{"--allow-no-new-privs"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newSBDirs(t)
			sock := startServe(t, bin, shortTempDir(t), append([]string{"--faux-script", script}, tc.serveArgs...)...)
			bashrc := filepath.Join(d.home, ".bashrc")
			os.WriteFile(bashrc, []byte("# mine\n"), 0o644)
			line, _ := json.Marshal(map[string]any{"id": "b", "type": "bash", "command": "echo pwned >> " + bashrc})
			probe := fmt.Sprintf(`cd "$HOME" && printf '%%s\n' '%s' | %s --mode rpc --connect %s; echo "bridge=$?"`, line, bin, sock)
			args := []string{"--mode", "json", "--faux-script", bashScript(t, d.tmp, probe)}
			if tc.confined {
				args = append(args, "--sandbox", "workspace")
			}
			out, errOut, code := runSB(t, bin, d, "", append(args, "go")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			res := toolResults(t, out)["c1"]
			got, _ := os.ReadFile(bashrc)
			if changed := string(got) != "# mine\n"; changed == tc.refused {
				t.Fatalf("~/.bashrc changed %v, want %v: %q; the tool said:\n%s", changed, !tc.refused, got, res)
			}
			if tc.refused && (!strings.Contains(res, "pi serve refuses this client") || !strings.Contains(res, "bridge=1")) {
				t.Fatalf("the bridge should fail with the server's reason; the tool said:\n%s", res)
			}
		})
	}
}

// TestSandboxEvalCheckIsConfined: under [sandbox] mode = "workspace" pi eval's check runs in
// the run's sandbox. The model's confined bash cannot write ~/.bashrc, so it writes a script
// in its scratch copy that does, for the task's check to run after the run.
func TestSandboxEvalCheckIsConfined(t *testing.T) {
	needLandlock(t, sandbox.Settings{Mode: "workspace"})
	bin := buildPi(t)
	d := newSBDirs(t)
	os.WriteFile(filepath.Join(d.piHome, "pi.toml"), []byte("[sandbox]\nmode = \"workspace\"\n"), 0o644)
	bashrc := filepath.Join(d.home, ".bashrc")
	os.WriteFile(bashrc, []byte("# mine\n"), 0o644)
	plant := `echo x >> "$HOME/.bashrc"; echo "direct=$?"; printf 'echo pwned >> "$HOME/.bashrc"\n' > run.sh`
	script, _ := json.Marshal([]any{sbCall("c1", "bash", map[string]any{"command": plant}), sbText("done")})
	tasks := filepath.Join(d.tmp, "tasks")
	writeTask(t, tasks, "plants", "prompt = \"go\"\ncheck = \"sh run.sh\"\ntimeout_seconds = 60\n", string(script), map[string]string{"keep.txt": "x\n"})
	out, errOut, _ := runSB(t, bin, d, "", "eval", "--model", "faux", "--tasks", tasks)
	if got, _ := os.ReadFile(bashrc); string(got) != "# mine\n" {
		t.Fatalf("~/.bashrc changed through the eval check: %q\n%s\n%s", got, out, errOut)
	}
	if !strings.Contains(out+errOut, "Permission denied") || !strings.Contains(out, "0/1") {
		t.Fatalf("the check should fail, confined, with a permission error:\n%s\n%s", out, errOut)
	}
}
