package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pi/internal/testwait"
	"pi/server"
)

// attachKit is `pi attach` in a tmux window against a `pi serve` of its own, both in dir.
type attachKit struct {
	*fdTmux
	dir, bin, sock string
	serve          *exec.Cmd
}

// startAttach starts pi serve with the faux replies and serveArgs, and pi attach in tmux.
func startAttach(t *testing.T, name string, replies []string, serveArgs ...string) *attachKit {
	return startAttachScript(t, name, map[string]any{"chunkDelayMs": 10, "chunkRunes": 8, "replies": textReplies(replies...)}, serveArgs...)
}

// textReplies are faux replies of one text each.
func textReplies(texts ...string) []any {
	var list []any
	for _, r := range texts {
		list = append(list, map[string]any{"content": []any{map[string]any{"type": "text", "text": r}}})
	}
	return list
}

// startAttachScript is startAttach with the whole faux script (chunk timing, replies).
func startAttachScript(t *testing.T, name string, faux map[string]any, serveArgs ...string) *attachKit {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := buildPi(t)
	dir := shortTempDir(t)
	script, _ := json.Marshal(faux)
	os.WriteFile(filepath.Join(dir, "script.json"), script, 0o600)
	sock, serve := startServeProc(t, bin, dir, append([]string{"--faux-script", filepath.Join(dir, "script.json")}, serveArgs...)...)
	sockDir, _ := os.MkdirTemp("", "pi-at-")
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	k := &attachKit{fdTmux: &fdTmux{t: t, sock: filepath.Join(sockDir, "s"), name: name}, dir: dir, bin: bin, sock: sock, serve: serve}
	t.Cleanup(func() { exec.Command("tmux", "-S", k.fdTmux.sock, "kill-server").Run() }) // this test's own server only
	run := filepath.Join(dir, "attach.sh")
	os.WriteFile(run, []byte(fmt.Sprintf("cd %s || exit 1\nPI_HOME=%s %s attach --socket %s\necho PI-EXITED\nsleep 60\n",
		fdShellQuote(dir), fdShellQuote(filepath.Join(dir, ".pihome")), fdShellQuote(bin), fdShellQuote(sock))), 0o755)
	k.run("new-session", "-d", "-s", name, "-x", "110", "-y", "40", "bash", "--norc", "--noprofile", run)
	k.must("start", "ctrl+d detach")
	return k
}

// window starts another pi attach, in its own tmux session, on this folder's latest session.
func (k *attachKit) window(name string) *fdTmux {
	m := &fdTmux{t: k.t, sock: k.fdTmux.sock, name: name}
	m.run("new-session", "-d", "-s", name, "-x", "110", "-y", "40", "bash", "--norc", "--noprofile", filepath.Join(k.dir, "attach.sh"))
	if !m.sees("ctrl+d detach", 20*time.Second) {
		k.t.Fatalf("the second pi attach did not start; pane:\n%s", m.screen())
	}
	return m
}

func (k *attachKit) must(what, want string) {
	k.t.Helper()
	if !k.sees(want, 20*time.Second) {
		k.t.Fatalf("%s: no %q; pane:\n%s", what, want, k.screen())
	}
}

// enter types a line and sends it.
func (k *attachKit) enter(line string) {
	k.typeText(line)
	time.Sleep(50 * time.Millisecond) // the completion popup settles before Enter
	k.keys("Enter")
}

// askLua is a script whose /ask command asks a question and reports the answer.
func askLua(t *testing.T) string {
	lua := `pi.register_command({name = "ask", description = "a question from the script", run = function(args)
  local yes = pi.confirm("Proceed with " .. args .. "?", "the script asks")
  pi.notify("the answer was " .. tostring(yes))
  pi.set_status("demo", "status-from-script")
end})`
	path := filepath.Join(shortTempDir(t), "ask.lua")
	os.WriteFile(path, []byte(lua), 0o600)
	return path
}

// A served session's script: its command is offered and runs on the server, its question is
// asked on the attached screen and answered there, its notice and status show; a picture goes
// with a prompt; Shift+Tab and Ctrl+P answer as the local UI does.
func TestAttachScriptUIInTmux(t *testing.T) {
	k := startAttach(t, "scriptui", []string{"Saw the picture."}, "-e", askLua(t))
	k.typeText("/as")
	k.must("the script's command in the popup", "a question from the script")
	k.keys("C-u")
	other := k.window("other") // a second screen on the same session
	k.enter("/ask now")
	k.must("the script's question", "Proceed with now?")
	if !other.sees("Proceed with now?", 10*time.Second) {
		t.Fatalf("the other screen was not asked; pane:\n%s", other.screen())
	}
	k.keys("Enter")
	k.must("the script's notice", "the answer was true")
	testwait.Within(testwait.Deadline, func() bool { return !strings.Contains(other.visible(), "Proceed with now?") })
	if strings.Contains(other.visible(), "Proceed with now?") {
		t.Fatalf("the other screen's dialog stayed after the answer; pane:\n%s", other.visible())
	}
	k.must("the script's status", "status-from-script")

	var pic bytes.Buffer
	png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	os.WriteFile(filepath.Join(k.dir, "pic.png"), pic.Bytes(), 0o600)
	k.enter("look at @pic.png")
	k.must("the reply", "Saw the picture.")
	k.must("the picture in the transcript", "[image]")

	k.keys("BTab")
	k.must("Shift+Tab", "does not think; thinking stays off")
	k.keys("C-p")
	k.must("Ctrl+P", "no other model to cycle to")
	k.keys("C-d")
	k.must("detach", "detached from")
}

// The session commands: /settings changes a setting of the served session, /scoped-models
// answers, /new and /resume move between sessions, /clone copies one.
func TestAttachSessionCommandsInTmux(t *testing.T) {
	k := startAttach(t, "sesscmds", []string{"First reply."}) // each opening of a session starts the replies again
	k.enter("hello there")
	k.must("the first prompt", "First reply.")

	k.enter("/settings")
	k.must("/settings", "Settings (saved to")
	k.keys("Down", "Down", "Enter") // steering mode
	k.must("the steering modes", "all")
	k.keys("Down", "Enter")
	k.must("the steering mode set", "steering mode: all (for this session)")

	k.enter("/scoped-models")
	k.must("/scoped-models", "ctrl+p cycles through every available model")

	k.enter("/new")
	k.must("/new", "new session:")
	k.enter("/resume")
	k.must("/resume", "Resume which session?")
	k.keys("Enter")
	k.must("/resume", "resumed session:")
	k.must("/resume shows the conversation", "hello there")

	k.enter("/clone")
	k.must("/clone", "cloned session:")
	k.enter("again")
	k.must("a prompt in the clone", "› again\n\nFirst reply.")
	k.keys("C-d")
	k.must("detach", "detached from")
}

// `pi -p --connect` takes piped input and @file arguments as `pi -p` does: the text joins the
// prompt and a picture goes with it, into the served session.
func TestPrintConnectReadsStdinAndFiles(t *testing.T) {
	bin := buildPi(t)
	dir := shortTempDir(t)
	script, _ := filepath.Abs("testdata/server/short.json")
	sock := startServe(t, bin, dir, "--faux-script", script)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("file-contents-here\n"), 0o600)
	var pic bytes.Buffer
	png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	os.WriteFile(filepath.Join(dir, "pic.png"), pic.Bytes(), 0o600)
	for _, args := range [][]string{{"@notes.txt", "what is this?"}, {"@pic.png", "and this?"}} {
		cmd := exec.Command(bin, append([]string{"-p", "--connect", sock}, args...)...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader("piped-input-here\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "Hello from the scripted model.") {
			t.Fatalf("pi -p --connect %v: %v, stdout %q, stderr %q", args, err, out, stderr.String())
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".pihome", "sessions", "*", "*.jsonl"))
	var all []byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all = append(all, b...)
	}
	for _, want := range []string{"piped-input-here", "file-contents-here", "what is this?", "and this?", `"type":"image"`} {
		if !bytes.Contains(all, []byte(want)) {
			t.Errorf("the served sessions do not hold %q:\n%s", want, all)
		}
	}
}

// Through `pi --mode rpc --connect`, a served session's script asks its question of the RPC
// client as RPC mode does (extension_ui_request), and the client's extension_ui_response
// answers it.
func TestRPCBridgeCarriesScriptQuestions(t *testing.T) {
	bin := buildPi(t)
	dir := shortTempDir(t)
	script, _ := filepath.Abs("testdata/server/short.json")
	sock := startServe(t, bin, dir, "--faux-script", script, "-e", askLua(t))
	cmd := exec.Command(bin, "--mode", "rpc", "--connect", sock)
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	p := &rpcPeer{t: t, stdin: stdin, dec: json.NewDecoder(stdout)}
	p.ok(`{"type":"prompt","id":"a","message":"/ask twice"}`)
	req := p.until("extension_ui_request")
	if req["method"] != "confirm" || req["title"] != "Proceed with twice?" {
		t.Fatalf("the question: %v", req)
	}
	answer, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
	stdin.Write(append(answer, '\n'))
	for {
		m := p.next()
		if m["type"] == server.UIClosed {
			t.Fatalf("an RPC client got %v, which RPC mode never sends", m)
		}
		if m["method"] == "notify" {
			if m["message"] != "the answer was true" {
				t.Fatalf("the notice: %v", m)
			}
			break
		}
	}
	stdin.Close()
	cmd.Wait()
}

// /tree offers a summary only when the move leaves messages behind, as the local UI does;
// /label labels an entry.
func TestAttachTreeInTmux(t *testing.T) {
	k := startAttach(t, "tree", []string{"First reply.", "Second reply."})
	k.enter("hello there")
	k.must("the first prompt", "First reply.")
	k.enter("and more")
	k.must("the second prompt", "Second reply.")

	k.enter("/tree")
	k.must("/tree", "Continue from which point?")
	k.keys("Up", "Up", "Enter") // the first reply: the second exchange is left behind
	k.must("/tree asks", "Summarise the branch you are leaving?")
	k.keys("Enter") // no summary
	k.must("/tree", "moved in the session tree; the conversation now reads:")

	k.enter("/tree")
	k.must("/tree", "Continue from which point?")
	k.keys("Down", "Enter") // the second prompt, just below: nothing is left behind, so no question
	testwait.Within(testwait.Deadline, func() bool { return strings.Count(k.screen(), "moved in the session tree") >= 2 })
	if screen := k.screen(); strings.Count(screen, "moved in the session tree") != 2 {
		t.Fatalf("the second move did not happen without a question: pane:\n%s", screen)
	}
	k.must("the prompt moved off is back in the editor", "and more\n────")
	k.keys("C-c")

	k.enter("/label")
	k.must("/label", "Label which entry?")
	k.keys("Enter")
	k.must("/label asks", "Label (empty to clear)")
	k.enter("a-mark")
	k.must("/label", "labelled")
	k.enter("/tree")
	k.must("the label in /tree", "a-mark")
	k.keys("Escape")
	// A key typed before the Escape is read alone would make Alt+key: /tree closing shows it was.
	if !testwait.Within(testwait.Deadline, func() bool { return !strings.Contains(k.visible(), "Continue from which point?") }) {
		t.Fatalf("Escape did not close /tree; pane:\n%s", k.screen())
	}
	k.keys("C-d")
	k.must("detach", "detached from")
}

// A served session's scripts' shortcut keys: /hotkeys lists them, pressing one runs the
// script on the server (its notice comes back), /reload loads the changed script on the
// server, and /trust says where trust is decided.
func TestAttachShortcutsAndReloadInTmux(t *testing.T) {
	script := filepath.Join(shortTempDir(t), "keys.lua")
	write := func(says string) {
		lua := `pi.register_shortcut{key = "Ctrl+Alt+P", description = "plan mode from the script", run = function()
  pi.notify("` + says + `")
end}`
		os.WriteFile(script, []byte(lua), 0o600)
	}
	write("shortcut-ran-on-server")
	k := startAttach(t, "shortcuts", []string{"Hi."}, "-e", script)
	k.enter("/hotkeys")
	k.must("/hotkeys lists the script's shortcut", "plan mode from the script")
	if strings.Contains(k.visible(), "(taken by") {
		t.Fatalf("the shortcut's key is taken; pane:\n%s", k.visible())
	}
	k.keys("C-M-p")
	k.must("the shortcut run on the server", "shortcut-ran-on-server")

	write("reloaded-shortcut-ran")
	k.enter("/reload")
	k.must("/reload", "scripts reloaded")
	k.keys("C-M-p")
	k.must("the reloaded script's shortcut", "reloaded-shortcut-ran")

	k.enter("/trust")
	k.must("/trust", "pi serve's decision")
	k.must("/trust says how", "pi trust "+k.dir)
	k.keys("C-d")
	k.must("detach", "detached from")
}

// pi serve killed with SIGKILL mid-reply: pi attach says the connection ended and Ctrl+D
// leaves it; a new pi serve replaces the stale socket and re-opens the session from its file,
// with the exchange before and the prompt sent just before the kill. (As in pi, a session's
// file is written from its first reply on.)
func TestAttachAfterServerKilled(t *testing.T) {
	k := startAttach(t, "killed", []string{"First reply.", strings.Repeat("streaming ", 400) + "END"})
	k.enter("hello there")
	k.must("the first reply", "First reply.")
	k.enter("stream now")
	k.must("the reply streaming", "streaming streaming")
	k.serve.Process.Kill() // SIGKILL
	k.must("the connection's end", "the connection to pi serve ended")
	k.keys("C-d")
	k.must("leaving", "PI-EXITED")
	startServe(t, k.bin, k.dir, "--faux-script", filepath.Join(k.dir, "script.json"))
	again := k.window("again")
	for _, want := range []string{"hello there", "First reply.", "stream now"} {
		if !again.sees(want, 20*time.Second) {
			t.Fatalf("the re-opened session lacks %q; pane:\n%s", want, again.screen())
		}
	}
	again.keys("C-d")
}
