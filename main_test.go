package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// buildPi compiles the pi binary once per test binary run.
func buildPi(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pi")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README's install line builds it
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type runResult struct {
	stdout, stderr string
	code           int
}

func runPi(t *testing.T, bin, dir string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running pi: %v", err)
	}
	return runResult{out.String(), errb.String(), code}
}

func TestBinaryPrintAndJSONModes(t *testing.T) {
	bin := buildPi(t)
	script := func(name string) string {
		abs, err := filepath.Abs(filepath.Join("testdata", "faux", name))
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	cases := []struct {
		name       string
		script     string
		wantStdout string
		wantStderr string
		wantCode   int
		wantEvents []string // in JSON mode, in this order (not necessarily adjacent)
	}{
		{"success", "hello.json", "Hello from the scripted model.\n", "", 0,
			[]string{"agent_start", "message_end", "turn_end", "agent_end"}},
		{"tool turn", "read_turn.json", "The notes say: buy milk.\n", "", 0,
			[]string{"agent_start", "tool_execution_start", "tool_execution_end", "turn_end", "turn_start", "agent_end"}},
		{"provider error", "provider_error.json", "", "pi: connection refused: is the model server running?\n", 1,
			[]string{"agent_start", "turn_end", "agent_end"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o644)
			r := runPi(t, bin, dir, "--faux-script", script(tc.script), "-p", "what do the notes say?")
			if r.stdout != tc.wantStdout || r.stderr != tc.wantStderr || r.code != tc.wantCode {
				t.Fatalf("print mode: code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
			}
			r = runPi(t, bin, dir, "--faux-script", script(tc.script), "--mode", "json", "what do the notes say?")
			if r.code != tc.wantCode {
				t.Fatalf("json mode exit code %d, stderr %q", r.code, r.stderr)
			}
			types := jsonLineTypes(t, r.stdout)
			if types[0] != "session" {
				t.Fatalf("first JSON line is %q, want the session header", types[0])
			}
			if !inOrder(types, tc.wantEvents) {
				t.Fatalf("events %v do not contain %v in order", types, tc.wantEvents)
			}
			if tc.name == "tool turn" && !strings.Contains(r.stdout, "buy milk") {
				t.Fatalf("the read result is missing from the JSON events")
			}
		})
	}
}

func TestBinaryPipedStdinJoinsThePrompt(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	script, _ := filepath.Abs("testdata/faux/hello.json")
	cmd := exec.Command(bin, "--faux-script", script, "--mode", "json", "summarise this")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome"))
	cmd.Stdin = strings.NewReader("piped text\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `piped text\n\nsummarise this`) {
		t.Fatalf("piped input not merged into the prompt:\n%s", out)
	}
}

func jsonLineTypes(t *testing.T, out string) []string {
	t.Helper()
	var types []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var v struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line is not JSON: %q: %v", sc.Text(), err)
		}
		types = append(types, v.Type)
	}
	if len(types) == 0 {
		t.Fatal("no JSON output")
	}
	return types
}

func inOrder(have, want []string) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestBinaryRefusesBadValues: a value pi cannot use is an error that says what is wanted, and
// nothing is started or created meanwhile.
func TestBinaryRefusesBadValues(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	hello, _ := filepath.Abs(filepath.Join("testdata", "faux", "hello.json"))
	missing := filepath.Join(dir, "typo", "x.jsonl")
	tests := []struct {
		name string
		toml string
		args []string
		want string
	}{
		{"thinking level", "", []string{"--thinking", "extreme", "-p", "hi"}, `--thinking "extreme": want one of off,`},
		{"session in a missing folder", "", []string{"--session", missing, "--faux-script", hello, "-p", "hi"},
			"there is no folder " + filepath.Dir(missing)},
		{"negative bash timeout", "[bash]\ntimeout = -5\n", []string{"--faux-script", hello, "-p", "hi"}, "bash.timeout = -5"},
		{"negative retries", "[retry]\nmax_retries = -1\n", []string{"--faux-script", hello, "-p", "hi"}, "retry.max_retries = -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(dir, ".pihome"))
			if tt.toml != "" {
				os.MkdirAll(filepath.Join(dir, ".pihome"), 0o755)
				os.WriteFile(filepath.Join(dir, ".pihome", "pi.toml"), []byte(tt.toml), 0o644)
			}
			r := runPi(t, bin, dir, tt.args...)
			if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want an error saying %q", r.code, r.stderr, tt.want)
			}
			if _, err := os.Stat(filepath.Dir(missing)); err == nil {
				t.Fatal("the mistyped session folder was created")
			}
		})
	}
	os.RemoveAll(filepath.Join(dir, ".pihome"))
	r := runPi(t, bin, dir, "--no-session", "--faux-script", hello, "-p", "hi")
	if r.code != 0 {
		t.Fatalf("a good run after the bad ones: exit %d: %s", r.code, r.stderr)
	}
}

// TestHelpAndVersion: -h and --version print on stdout and exit 0, and the help names every
// flag pi has.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 || errOut.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
		names := flagNames(t)
		for _, name := range names {
			if !regexp.MustCompile(`-` + regexp.QuoteMeta(name) + `\b[^-]`).MatchString(out.String()) {
				t.Errorf("-h does not mention -%s", name)
			}
		}
	}
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "pi "+piVersion) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}

// flagNames lists the flags parseArgs defines.
func flagNames(t *testing.T) []string {
	t.Helper()
	var names []string
	parseFlags(&cliOptions{}, io.Discard).VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if len(names) < 20 {
		t.Fatalf("only %d flags found", len(names))
	}
	return names
}

// TestSessionsSubcommandAfterFlags: `pi --session-dir X sessions` lists X's sessions; with -p
// the word is a prompt.
func TestSessionsSubcommandAfterFlags(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--session-dir", dir, "sessions"}, strings.NewReader(""), &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "no sessions in this directory yet") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestListModelsWithNothingAnswering: when no server answers, --list-models says so in one
// line and fails, instead of listing connection errors of servers nobody configured.
func TestListModelsWithNothingAnswering(t *testing.T) {
	t.Setenv("PI_HOME", t.TempDir())
	t.Setenv("OLLAMA_HOST", "127.0.0.1:9")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--list-models"}, strings.NewReader(""), &out, &errOut)
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if code != 1 || out.Len() != 0 || len(lines) != 1 || !strings.Contains(lines[0], "no models: nothing answered") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestBinaryRemovesSpilledOutputAtExit: the folder that holds commands' full outputs goes
// when pi ends.
func TestBinaryRemovesSpilledOutputAtExit(t *testing.T) {
	bin := buildPi(t)
	dir, tmp := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "script.json")
	os.WriteFile(script, []byte(`[{"content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"seq 1 100000"}}]},`+
		`{"content":[{"type":"text","text":"done"}]}]`), 0o644)
	cmd := exec.Command(bin, "--no-session", "--faux-script", script, "-p", "go")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "TMPDIR="+tmp, "PI_HOME="+filepath.Join(dir, ".pihome"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "pi-*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}
