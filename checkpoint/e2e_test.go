package checkpoint_test

// The bundled checkpoints script through the real binary: scripted turns change the files
// with edit, write and bash, and /undo, /redo, pi checkpoints restore, an RPC navigate_tree
// and a --fork put them back, byte for byte and with their modes, leaving the user's own git
// repository as it was.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func buildPi(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and drives the pi binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "pi")
	cmd := exec.Command("go", "build", "-o", bin, "pi")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type project struct {
	t              *testing.T
	bin, dir, home string
}

func (p project) run(args ...string) (stdout, stderr string, code int) {
	p.t.Helper()
	cmd := exec.Command(p.bin, args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "PI_HOME="+p.home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatalf("running pi %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// faux writes a scripted model's turns: each tool call in its own turn, then a closing text.
func (p project) faux(name string, calls ...map[string]any) string {
	p.t.Helper()
	var steps []any
	for i, c := range calls {
		steps = append(steps, map[string]any{"content": []any{map[string]any{"type": "toolCall",
			"id": fmt.Sprintf("call_%d", i), "name": c["name"], "arguments": c["arguments"]}}})
	}
	steps = append(steps, map[string]any{"content": []any{map[string]any{"type": "text", "text": "done: " + name}}})
	data, _ := json.Marshal(steps)
	path := filepath.Join(p.home, name+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		p.t.Fatal(err)
	}
	return path
}

func (p project) prompt(script, text string, more ...string) {
	p.t.Helper()
	args := append(append([]string{}, more...), "--faux-script", script, "-p", text)
	if out, errOut, code := p.run(args...); code != 0 {
		p.t.Fatalf("pi %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
}

func (p project) command(text string, more ...string) string {
	p.t.Helper()
	hello := p.faux("hello")
	args := append(append([]string{}, more...), "--faux-script", hello, "-p", text)
	_, errOut, code := p.run(args...)
	if code != 0 {
		p.t.Fatalf("pi %v: exit %d\n%s", args, code, errOut)
	}
	return errOut
}

// files is every path below the project but .git and the pi home: content and mode, "dir"
// for an empty folder.
func (p project) files() map[string]string {
	out := map[string]string{}
	filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(p.dir, path)
		if rel == ".git" || rel == ".pihome" {
			return filepath.SkipDir
		}
		if err != nil || rel == "." {
			return err
		}
		info, lerr := os.Lstat(path)
		if lerr != nil { // gone since the walk listed it: a restore is still under way
			return nil
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			out[rel] = "symlink " + target
		case d.IsDir():
			if es, _ := os.ReadDir(path); len(es) == 0 {
				out[rel] = "empty dir"
			}
		default:
			data, _ := os.ReadFile(path)
			out[rel] = fmt.Sprintf("%v %q", info.Mode().Perm(), data)
		}
		return nil
	})
	return out
}

func sameFiles(t *testing.T, when string, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for k, w := range want {
		if got[k] != w {
			diffs = append(diffs, fmt.Sprintf("%s: got %s, want %s", k, got[k], w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: should not exist (%s)", k, g))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("%s, the files differ:\n%s", when, strings.Join(diffs, "\n"))
	}
}

func newProject(t *testing.T, bin string, withGit bool) project {
	p := project{t: t, bin: bin, dir: t.TempDir()}
	p.home = filepath.Join(p.dir, ".pihome") // inside the project, as a hostile case: never snapshotted
	for path, content := range map[string]string{
		"src/main.go": "package main\n\nfunc main() { println(\"hi\") }\n", "src/util/strings.go": "package util\n",
		"other.txt": "alpha\nbeta\ngamma\n", "build.sh": "#!/bin/sh\necho build\n", "logo.bin": "\x89PNG\x00\x01\x02",
		".gitignore": "*.log\n", "debug.log": "ignored\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(p.dir, path)), 0o755)
		os.WriteFile(filepath.Join(p.dir, path), []byte(content), 0o644)
	}
	os.Chmod(filepath.Join(p.dir, "build.sh"), 0o755)
	os.Mkdir(filepath.Join(p.dir, "empty"), 0o755)
	os.Symlink("src/main.go", filepath.Join(p.dir, "main-link"))
	os.MkdirAll(p.home, 0o755)
	if withGit {
		git(t, p.dir, "init", "-q")
		os.WriteFile(filepath.Join(p.dir, ".git", "info", "exclude"), []byte(".pihome/\n"), 0o644)
		git(t, p.dir, "add", "-A")
		git(t, p.dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
		os.WriteFile(filepath.Join(p.dir, "other.txt"), []byte("alpha\nbeta\ngamma\nuncommitted\n"), 0o644)
		git(t, p.dir, "stash", "-q")
		os.WriteFile(filepath.Join(p.dir, "other.txt"), []byte("alpha\nbeta\ngamma\nstaged\n"), 0o644)
		git(t, p.dir, "add", "other.txt")
	}
	return p
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitState is what the user's repository shows: status, stash, HEAD and the index's bytes.
func gitState(t *testing.T, dir string) string {
	index, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	sum := sha256.Sum256(index)
	hooks, _ := os.ReadDir(filepath.Join(dir, ".git", "hooks"))
	return git(t, dir, "status", "--porcelain") + git(t, dir, "stash", "list") +
		git(t, dir, "rev-parse", "HEAD") + hex.EncodeToString(sum[:]) + fmt.Sprint(len(hooks))
}

func call(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

func TestUndoRedoAndRestoreThroughTheBinary(t *testing.T) {
	bin := buildPi(t)
	for _, withGit := range []bool{true, false} {
		t.Run(fmt.Sprintf("git=%v", withGit), func(t *testing.T) {
			if _, err := exec.LookPath("git"); withGit && err != nil {
				t.Skip("git is not installed")
			}
			p := newProject(t, bin, withGit)
			var gitBefore string
			if withGit {
				gitBefore = gitState(t, p.dir)
			}
			start := p.files()
			p.prompt(p.faux("edit", call("edit", map[string]any{"path": "src/main.go",
				"edits": []any{map[string]any{"oldText": "hi", "newText": "hello"}}})), "edit main")
			afterEdit := p.files()
			p.prompt(p.faux("write", call("write", map[string]any{"path": "docs/new.md", "content": "# new\n"})), "write", "-c")
			afterWrite := p.files()
			p.prompt(p.faux("bash", call("bash", map[string]any{"command": "rm -rf src && sed -i s/beta/BETA/ other.txt && chmod -x build.sh"})), "bash", "-c")
			afterBash := p.files()
			if _, err := os.Stat(filepath.Join(p.dir, "src")); err == nil {
				t.Fatal("the bash turn did not remove src")
			}
			p.command("/undo", "-c")
			sameFiles(t, "after the first /undo", p.files(), afterWrite)
			p.command("/undo", "-c")
			sameFiles(t, "after the second /undo", p.files(), afterEdit)
			msg := p.command("/undo", "-c")
			sameFiles(t, "after the third /undo", p.files(), start)
			if !strings.Contains(msg, "M src/main.go") {
				t.Errorf("/undo did not name the file it put back: %q", msg)
			}
			p.command("/redo", "-c")
			sameFiles(t, "after /redo", p.files(), afterEdit)

			// The command line: back to after the bash turn, then to the start.
			out, _, _ := p.run("checkpoints", "list")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) < 6 {
				t.Fatalf("pi checkpoints list shows %d snapshots, want at least 6:\n%s", len(lines), out)
			}
			ids := map[string]string{} // state → snapshot id, found by restoring each and comparing
			for _, l := range lines {
				id := strings.Fields(l)[0]
				if _, errOut, code := p.run("checkpoints", "restore", id, "--force"); code != 0 {
					t.Fatalf("pi checkpoints restore %s: exit %d: %s", id, code, errOut)
				}
				ids[fmt.Sprint(p.files())] = id
			}
			for _, to := range []struct {
				name string
				want map[string]string
			}{{"after the bash turn", afterBash}, {"start", start}} {
				name, want := to.name, to.want
				id, ok := ids[fmt.Sprint(want)]
				if !ok {
					t.Fatalf("no snapshot in the list holds the files %s", name)
				}
				if _, errOut, code := p.run("checkpoints", "restore", id); code != 0 { // no --force: the files are where the last restore left them
					t.Fatalf("pi checkpoints restore %s: exit %d: %s", id, code, errOut)
				}
				sameFiles(t, "pi checkpoints restore to "+name, p.files(), want)
			}
			if withGit {
				if got := gitState(t, p.dir); got != gitBefore {
					t.Errorf("the user's git repository changed:\nbefore %s\nafter  %s", gitBefore, got)
				}
			}
		})
	}
}

func TestHandEditIsDetectedBeforeARestore(t *testing.T) {
	p := newProject(t, buildPi(t), false)
	p.prompt(p.faux("edit", call("bash", map[string]any{"command": "echo agent > other.txt"})), "overwrite")
	if err := os.WriteFile(filepath.Join(p.dir, "other.txt"), []byte("my own edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hello := p.faux("hello")
	_, errOut, _ := p.run("-c", "--faux-script", hello, "-p", "/undo")
	if !strings.Contains(errOut, "other.txt") || !strings.Contains(errOut, "--force") {
		t.Errorf("/undo over a hand edit did not say so: %q", errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "other.txt")); string(got) != "my own edit\n" {
		t.Fatalf("/undo in print mode overwrote a hand edit: %q", got)
	}
	if _, errOut, code := p.run("checkpoints", "restore", entryData(t, p, "before")); code == 0 || !strings.Contains(errOut, "other.txt") {
		t.Errorf("pi checkpoints restore over a hand edit: exit %d, %q; want a refusal naming other.txt", code, errOut)
	}
	p.command("/undo --force", "-c")
	if got, _ := os.ReadFile(filepath.Join(p.dir, "other.txt")); string(got) != "alpha\nbeta\ngamma\n" {
		t.Errorf("/undo --force left %q", got)
	}
}

// TestTreeAndForkCarryTheFiles: navigate_tree (over RPC) to the point after the first answer
// sets that point's files; a --fork of the session continues from them, and the original
// session still restores its own.
func TestTreeAndForkCarryTheFiles(t *testing.T) {
	p := newProject(t, buildPi(t), false)
	os.WriteFile(filepath.Join(p.home, "pi.toml"), []byte("[checkpoints]\ntree_files = \"files\"\n"), 0o644)
	start := p.files()
	p.prompt(p.faux("one", call("write", map[string]any{"path": "one.txt", "content": "1\n"})), "one")
	afterOne := p.files()
	p.prompt(p.faux("two", call("bash", map[string]any{"command": "rm other.txt && echo 2 > two.txt"})), "two", "-c")
	sessions, _ := filepath.Glob(filepath.Join(p.home, "sessions", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("want one session file, got %v", sessions)
	}
	firstCheckpoint := entryIDs(t, sessions[0], "checkpoint")[0]

	cmd := exec.Command(p.bin, "--mode", "rpc", "-c", "--faux-script", p.faux("hello"))
	cmd.Dir, cmd.Env = p.dir, append(os.Environ(), "PI_HOME="+p.home)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	fmt.Fprintf(stdin, `{"id":"1","type":"navigate_tree","targetId":%q}`+"\n", firstCheckpoint)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), `"navigate_tree"`) {
	}
	waitFor(t, "the files of the point after the first answer", func() bool { return fmt.Sprint(p.files()) == fmt.Sprint(afterOne) })
	stdin.Close()
	cmd.Wait()
	sameFiles(t, "after navigate_tree", p.files(), afterOne)

	p.prompt(p.faux("three", call("write", map[string]any{"path": "three.txt", "content": "3\n"})), "three", "--fork", sessions[0])
	if _, err := os.Stat(filepath.Join(p.dir, "three.txt")); err != nil {
		t.Fatal("the fork's turn did not write three.txt")
	}
	p.command("/undo", "-c") // the newest session is the fork
	sameFiles(t, "after /undo in the fork", p.files(), afterOne)
	p.command("/undo", "--session", sessions[0])
	sameFiles(t, "after /undo in the original session", p.files(), start)
}

// entryData is a field of the session's first checkpoint entry.
func entryData(t *testing.T, p project, field string) string {
	sessions, _ := filepath.Glob(filepath.Join(p.home, "sessions", "*", "*.jsonl"))
	data, err := os.ReadFile(sessions[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			CustomType string
			Data       map[string]any
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.CustomType == "checkpoint" {
			return fmt.Sprint(e.Data[field])
		}
	}
	t.Fatal("no checkpoint entry")
	return ""
}

func entryIDs(t *testing.T, path, customType string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct{ Type, ID, CustomType string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "custom" && e.CustomType == customType {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		t.Fatalf("%s holds no %s entry", path, customType)
	}
	return ids
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// rpcClient drives pi --mode rpc and answers its select requests with answer.
type rpcClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan map[string]any
	answer string
	asked  []string
}

func startRPC(t *testing.T, p project, answer string, args ...string) *rpcClient {
	cmd := exec.Command(p.bin, append([]string{"--mode", "rpc", "--faux-script", p.faux("hello")}, args...)...)
	cmd.Dir, cmd.Env = p.dir, append(os.Environ(), "PI_HOME="+p.home)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rpcClient{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 100), answer: answer}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.lines <- m
			}
		}
		close(c.lines)
	}()
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return c
}

// call sends a command and answers select requests until its response comes.
func (c *rpcClient) call(cmd string) map[string]any {
	c.t.Helper()
	fmt.Fprintln(c.in, cmd)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("pi exited before answering %s", cmd)
			}
			if m["type"] == "extension_ui_request" && m["method"] == "select" {
				c.asked = append(c.asked, fmt.Sprint(m["title"], m["options"]))
				fmt.Fprintf(c.in, `{"type":"extension_ui_response","id":%q,"value":%q}`+"\n", m["id"], c.answer)
			}
			if m["type"] == "response" {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no response to %s", cmd)
		}
	}
}

// TestTreeAndForkAskAboutTheFiles: with tree_files at its default, navigate_tree and fork ask
// "conversation and files, or conversation only?" and do as answered.
func TestTreeAndForkAskAboutTheFiles(t *testing.T) {
	bin := buildPi(t)
	for _, answer := range []string{"conversation and files", "conversation only", "cancel"} {
		t.Run(answer, func(t *testing.T) {
			p := newProject(t, bin, false)
			p.prompt(p.faux("one", call("write", map[string]any{"path": "one.txt", "content": "1\n"})), "one")
			afterOne := p.files()
			p.prompt(p.faux("two", call("bash", map[string]any{"command": "echo 2 > two.txt"})), "two", "-c")
			afterTwo := p.files()
			sessions, _ := filepath.Glob(filepath.Join(p.home, "sessions", "*", "*.jsonl"))
			want := map[string]map[string]string{"conversation and files": afterOne, "conversation only": afterTwo, "cancel": afterTwo}[answer]

			c := startRPC(t, p, answer, "--session", sessions[0])
			resp := c.call(fmt.Sprintf(`{"id":"1","type":"navigate_tree","targetId":%q}`, entryIDs(t, sessions[0], "checkpoint")[0]))
			if len(c.asked) != 1 || !strings.Contains(c.asked[0], "conversation only") {
				t.Fatalf("navigate_tree asked %v, want one question offering conversation only", c.asked)
			}
			if answer == "cancel" && resp["success"] != false {
				t.Errorf("a cancelled move answered %v", resp)
			}
			waitFor(t, "the files the answer asks for", func() bool { return fmt.Sprint(p.files()) == fmt.Sprint(want) })
			sameFiles(t, "after navigate_tree answered "+answer, p.files(), want)

			// /fork before the second prompt: that point's files are the first answer's.
			p2 := newProject(t, bin, false)
			p2.prompt(p2.faux("one", call("write", map[string]any{"path": "one.txt", "content": "1\n"})), "one")
			p2.prompt(p2.faux("two", call("bash", map[string]any{"command": "echo 2 > two.txt"})), "two", "-c")
			afterOne2, afterTwo2 := p2.files(), p2.files()
			os.Remove(filepath.Join(p2.dir, "two.txt"))
			afterOne2 = p2.files()
			os.WriteFile(filepath.Join(p2.dir, "two.txt"), []byte("2\n"), 0o644)
			sessions2, _ := filepath.Glob(filepath.Join(p2.home, "sessions", "*", "*.jsonl"))
			c2 := startRPC(t, p2, answer, "--session", sessions2[0])
			c2.call(fmt.Sprintf(`{"id":"2","type":"fork","entryId":%q}`, userMessages(t, sessions2[0])[1]))
			want2 := map[string]map[string]string{"conversation and files": afterOne2, "conversation only": afterTwo2, "cancel": afterTwo2}[answer]
			waitFor(t, "the fork's files", func() bool { return fmt.Sprint(p2.files()) == fmt.Sprint(want2) })
			if len(c2.asked) != 1 {
				t.Errorf("fork asked %v, want one question", c2.asked)
			}
		})
	}
}

func userMessages(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Type, ID string
			Message  struct{ Role string }
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "message" && e.Message.Role == "user" {
			ids = append(ids, e.ID)
		}
	}
	return ids
}
