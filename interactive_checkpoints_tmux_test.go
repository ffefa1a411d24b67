//go:build unix

package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The bundled checkpoints script's questions in the real terminal UI: a /tree or /fork move to
// a point whose files differ asks "conversation and files, or conversation only?", and a
// restore that would overwrite a hand edit asks first; each answer leaves the files on disk as
// it says.

// ckptProject is a project with one file of the user's and a scripted model whose first
// answer writes one.txt and whose second runs bash to write two.txt.
func ckptProject(t *testing.T) *fdProject {
	t.Helper()
	dir := t.TempDir()
	p := &fdProject{dir: dir, home: filepath.Join(dir, ".pihome"), sessions: filepath.Join(dir, "sessions"),
		script: filepath.Join(dir, "script.json")}
	for name, content := range map[string]string{
		"notes.txt": "mine\n",
		// A script command whose notice comes after every Lua handler queued before it: what the
		// test waits for where an answer leaves nothing to see.
		".pi/init.lua": `pi.register_command{name = "ping", run = function() pi.notify("PONG " .. pi.read_file("notes.txt"):sub(1, 4)) end}`,
		".gitignore":   "run.sh\nscript.json\nsessions/\n.pihome/\n",
		"script.json": `[
 {"content": [{"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "one.txt", "content": "1\n"}}]},
 {"content": [{"type": "text", "text": "ONE-DONE"}]},
 {"content": [{"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "echo 2 > two.txt && echo agent > notes.txt"}}]},
 {"content": [{"type": "text", "text": "TWO-DONE"}]},
 {"content": [{"type": "text", "text": "spare"}]}, {"content": [{"type": "text", "text": "spare"}]}]`,
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// projectFiles lists the project's own files with their contents, as "name=content".
func projectFiles(t *testing.T, p *fdProject) string {
	t.Helper()
	var out []string
	for _, name := range []string{"notes.txt", "one.txt", "two.txt"} {
		if data, err := os.ReadFile(filepath.Join(p.dir, name)); err == nil {
			out = append(out, name+"="+strings.TrimSpace(string(data)))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// answerTwoPrompts types the two prompts and waits for both answers and their turns' ends.
func answerTwoPrompts(t *testing.T, m *fdTmux) {
	t.Helper()
	for _, step := range []struct{ prompt, answer string }{{"one", "ONE-DONE"}, {"two", "TWO-DONE"}} {
		m.typeText(step.prompt)
		m.keys("Enter")
		if !m.sees(step.answer, 20*time.Second) || !fdWaitUntil(20*time.Second, func() bool { return !m.working() }) {
			t.Fatalf("no %s; pane:\n%s", step.answer, m.screen())
		}
	}
}

// choose waits for a question, then types a filter that leaves one option and takes it.
func choose(t *testing.T, m *fdTmux, question, option string) {
	t.Helper()
	if !m.sees(question, 10*time.Second) {
		t.Fatalf("never asked %q; pane:\n%s", question, m.screen())
	}
	m.typeText(option)
	m.keys("Enter")
}

// editorText is what the editor holds: the lines between the last two rules on screen.
func editorText(m *fdTmux) string {
	lines := strings.Split(m.visible(), "\n")
	var rules []int
	for i, l := range lines {
		if l = strings.TrimSpace(l); l != "" && strings.Trim(l, "─") == "" {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return ""
	}
	return strings.TrimSpace(strings.Join(lines[rules[len(rules)-2]+1:rules[len(rules)-1]], "\n"))
}

// ping runs /ping and waits for its notice: every Lua handler queued before it has run.
func ping(t *testing.T, m *fdTmux, n int) {
	t.Helper()
	m.typeText("/ping")
	m.keys("Enter")
	if !fdWaitUntil(10*time.Second, func() bool { return strings.Count(m.screen(), "PONG") >= n }) {
		t.Fatalf("no PONG; pane:\n%s", m.screen())
	}
}

func TestTmuxTreeAndForkAskWhetherTheFilesGoBack(t *testing.T) {
	const afterOne, afterTwo = "notes.txt=mine one.txt=1", "notes.txt=agent one.txt=1 two.txt=2"
	bin := buildPi(t)
	const forked, moved = "forked into a new session", "moved in the session tree"
	cases := []struct {
		move, answer, want string
		done               string // the notice that says the move is over
		editor             bool   // the move puts the second prompt back in the editor
	}{
		{"/fork", "conversation and files", afterOne, forked, true},
		{"/fork", "conversation only", afterTwo, forked, true},
		{"/fork", "cancel", afterTwo, "handler cancelled it", false},
		{"/tree", "conversation and files", afterOne, moved, true},
		{"/tree", "conversation only", afterTwo, moved, true},
	}
	for _, tc := range cases {
		t.Run(tc.move+" "+tc.answer, func(t *testing.T) {
			p := ckptProject(t)
			m := startFDTmux(t, bin, p)
			answerTwoPrompts(t, m)
			if got := projectFiles(t, p); got != afterTwo {
				t.Fatalf("after the two answers: %s, want %s", got, afterTwo)
			}
			m.typeText(tc.move)
			m.keys("Enter")
			if tc.move == "/fork" {
				choose(t, m, "Fork from which message?", "two") // the point before the second prompt
			} else {
				choose(t, m, "Continue from which point?", "user: two")
				choose(t, m, "Summarise the branch you are leaving?", "No summary")
			}
			choose(t, m, "The files there differ from the files now", tc.answer)
			if !m.sees(tc.done, 10*time.Second) {
				t.Fatalf("no %q; pane:\n%s", tc.done, m.screen())
			}
			if tc.editor {
				if !fdWaitUntil(10*time.Second, func() bool { return editorText(m) == "two" }) {
					t.Fatalf("the move did not put the prompt back in the editor: %q", editorText(m))
				}
				m.keys("C-u")
			}
			ping(t, m, 1)
			if got := projectFiles(t, p); got != tc.want {
				t.Errorf("after %s answered %q: %s, want %s; pane:\n%s", tc.move, tc.answer, got, tc.want, m.screen())
			}
			m.quit()
		})
	}
}

func TestTmuxUndoAsksBeforeOverwritingAHandEdit(t *testing.T) {
	bin := buildPi(t)
	for _, tc := range []struct {
		answer, want, says string
	}{
		{"Yes", "notes.txt=mine one.txt=1", "put back as before that answer"},
		{"No", "notes.txt=by hand one.txt=1 two.txt=2", "refused: files changed since the snapshot"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			p := ckptProject(t)
			m := startFDTmux(t, bin, p)
			answerTwoPrompts(t, m)
			if err := os.WriteFile(filepath.Join(p.dir, "notes.txt"), []byte("by hand\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			m.typeText("/undo")
			m.keys("Enter")
			if !m.sees("Overwrite changes made since the snapshot?", 10*time.Second) || !m.sees("notes.txt", time.Second) {
				t.Fatalf("/undo over a hand edit did not ask naming notes.txt; pane:\n%s", m.screen())
			}
			if got := projectFiles(t, p); got != "notes.txt=by hand one.txt=1 two.txt=2" {
				t.Fatalf("the files changed before the answer: %s", got)
			}
			m.typeText(strings.ToLower(tc.answer[:1]))
			if !m.sees(tc.says, 10*time.Second) {
				t.Fatalf("after %s: no %q; pane:\n%s", tc.answer, tc.says, m.screen())
			}
			if got := projectFiles(t, p); got != tc.want {
				t.Errorf("after answering %s: %s, want %s", tc.answer, got, tc.want)
			}
			m.quit()
		})
	}
}
