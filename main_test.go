package main

import (
	"bufio"
	"bytes"
	"cmp"
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

	"pi/internal/pitest"
	"pi/live"
	"pi/provider"
	"pi/provider/faux"
	"pi/session"
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
	return runPiWith(t, bin, dir, append(os.Environ(), "PI_HOME="+filepath.Join(dir, ".pihome")), args...)
}

// runPiWith runs the binary in dir with exactly env, and gives what it wrote and its exit code.
func runPiWith(t *testing.T, bin, dir string, env []string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
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
			// A session whose only reply is an error leaves no file (docs/usage.md, Sessions).
			files, _ := filepath.Glob(filepath.Join(dir, ".pihome", "sessions", "*", "*.jsonl"))
			if len(files) == 0 != (tc.wantCode != 0) {
				t.Fatalf("session files %v after a run that exited with %d", files, r.code)
			}
			r = runPi(t, bin, dir, "--faux-script", script(tc.script), "--mode", "json", "what do the notes say?")
			if r.code != tc.wantCode {
				t.Fatalf("json mode exit code %d, stderr %q", r.code, r.stderr)
			}
			types := jsonLineTypes(t, r.stdout)
			if types[0] != "session" {
				t.Fatalf("first JSON line is %q, want the session header", types[0])
			}
			if !pitest.InOrder(types, tc.wantEvents) {
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

// liveSetup is what a front end's test session starts from besides its scripted model.
type liveSetup struct {
	cwd      string // "" is a temporary folder
	toml     string // the pi home's pi.toml
	initLua  string // the pi home's init.lua
	session  string // a session file to continue; "" starts one in cwd/sessions
	allTools bool   // every tool, the scripts' too; otherwise bash only
}

// newOpsApp builds a live session as a front end does, around a scripted model and a session
// file in a temporary folder, with bash as its one tool and no scripts.
func newOpsApp(t *testing.T, model provider.Model, steps ...faux.Step) *live.Session {
	t.Helper()
	return newLiveApp(t, liveSetup{}, model, steps...)
}

// newLiveApp is newOpsApp from ls; the session is closed when the test ends.
func newLiveApp(t *testing.T, ls liveSetup, model provider.Model, steps ...faux.Step) *live.Session {
	t.Helper()
	dir := cmp.Or(ls.cwd, t.TempDir())
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"pi.toml": ls.toml, "init.lua": ls.initLua} {
		if text != "" {
			if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	o := live.Options{Cwd: dir, PiHome: home, Provider: faux.New(steps...), ProviderModel: model, Tools: []string{"bash"},
		Thinking: "off", NoContextFiles: true, Session: session.Choice{Dir: filepath.Join(dir, "sessions"), Ref: ls.session}}
	if ls.allTools {
		o.Tools = nil
	}
	h, err := live.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	h.Agent().SetSystemPrompt("agent") // the scripted models tell summary requests by this
	return h
}

// entriesOfType are the session's entries of one type, as its tree lists them.
func entriesOfType(t *testing.T, h *live.Session, typ session.Type) []session.TreeEntry {
	t.Helper()
	all, _, err := h.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var out []session.TreeEntry
	for _, e := range all {
		if e.Type == string(typ) {
			out = append(out, e)
		}
	}
	return out
}

// sessionSnapshot opens a copy of h's session file, for reading what it holds in full.
func sessionSnapshot(t *testing.T, h *live.Session) *session.Session {
	t.Helper()
	data, err := os.ReadFile(h.State().SessionFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snapshot.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// transcriptOf renders the session's transcript as role:text items.
func transcriptOf(h *live.Session) string { return pitest.Transcript(h.Agent().MessagesView()) }

// treeApp is a session whose file holds two branches after a shared start:
//
//	u1 "plan the cache" → a1 ─┬→ u2 "try redis" → a2 (edit redis.go) → r2 → a3 "redis works"
//	                          └→ u3 "try memcached" → a4 (read mc.go) → r4 → a5 "memcached is slow"  (leaf)
//
// u1 carries the label "start". The file is written first and the session continues it, as
// pi --session does.
func treeApp(t *testing.T, steps ...faux.Step) (*live.Session, map[string]string) {
	t.Helper()
	return treeAppWith(t, liveSetup{}, steps...)
}

// treeAppWith is treeApp from ls (its cwd and session are treeApp's).
func treeAppWith(t *testing.T, ls liveSetup, steps ...faux.Step) (*live.Session, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	s := session.Create(filepath.Join(dir, "sessions"), dir)
	ids, model := map[string]string{}, pitest.FauxModel(false)
	add := func(name string, m provider.Message) {
		t.Helper()
		if m.Role == provider.RoleAssistant { // as the session records a reply, so that it continues on the same model
			m.Provider, m.Model = model.Provider, model.ID
		}
		id, err := s.AppendMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	call := func(id, name, path string) provider.Message {
		return faux.Blocks(faux.Call(id, name, map[string]any{"path": path}))
	}
	result := func(id, name, text string) provider.Message {
		return provider.Message{Role: provider.RoleToolResult, ToolCallID: id, ToolName: name,
			Content: []provider.Block{provider.Text(text)}}
	}
	if _, err := s.AppendModelChange(model.Provider, model.ID); err != nil { // as a new session records its model
		t.Fatal(err)
	}
	add("u1", provider.UserText("plan the cache", 1))
	if _, err := s.SetLabel(ids["u1"], "start"); err != nil {
		t.Fatal(err)
	}
	add("a1", faux.Text("two options"))
	add("u2", provider.UserText("try redis", 2))
	add("a2", call("c2", "edit", "redis.go"))
	add("r2", result("c2", "edit", "edited redis.go"))
	add("a3", faux.Text("redis works"))
	if err := s.Branch(ids["a1"]); err != nil {
		t.Fatal(err)
	}
	add("u3", provider.UserText("try memcached", 3))
	add("a4", call("c4", "read", "mc.go"))
	add("r4", result("c4", "read", "package mc"))
	add("a5", faux.Text("memcached is slow"))
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ls.cwd, ls.session = dir, path
	return newLiveApp(t, ls, model, steps...), ids
}

func TestBinaryRecordsAndContinuesSessions(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	script, _ := filepath.Abs("testdata/faux/hello.json")
	for _, args := range [][]string{{"-p", "first"}, {"-c", "-p", "second"}} {
		r := runPi(t, bin, dir, append([]string{"--faux-script", script}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: code %d stderr %s", args, r.code, r.stderr)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".pihome", "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one session file continued by -c, found %v", files)
	}
	var users []string
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct {
			Type    string           `json:"type"`
			Message provider.Message `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		if e.Type == "message" && e.Message.Role == provider.RoleUser {
			users = append(users, e.Message.Content[len(e.Message.Content)-1].Text)
		}
	}
	if strings.Join(users, ",") != "first,second" {
		t.Fatalf("user messages in the session: %v", users)
	}
	r := runPi(t, bin, dir, "sessions")
	if r.code != 0 || !strings.Contains(r.stdout, "first") || !strings.Contains(r.stdout, "   4 msgs") {
		t.Fatalf("pi sessions: %q %q", r.stdout, r.stderr)
	}
}
