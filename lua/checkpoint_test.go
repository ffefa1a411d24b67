package lua

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeSession is a fakeSession with a session tree (SessionTree).
type treeSession struct {
	fakeSession
	leaf    string
	entries []SessionEntry
}

func (s *treeSession) Leaf() string { return s.leaf }
func (s *treeSession) Entries(leaf string) ([]SessionEntry, error) {
	if leaf == "" {
		return s.entries, nil
	}
	byID := map[string]SessionEntry{}
	for _, e := range s.entries {
		byID[e.ID] = e
	}
	var path []SessionEntry
	for id := leaf; id != ""; id = byID[id].ParentID {
		e, ok := byID[id]
		if !ok {
			return nil, errors.New("no entry " + id)
		}
		path = append([]SessionEntry{e}, path...)
	}
	return path, nil
}

func TestScriptsAPIForCheckpoints(t *testing.T) {
	tree := &treeSession{leaf: "c", entries: []SessionEntry{
		{ID: "a", Type: "message", Role: "user"},
		{ID: "b", ParentID: "a", Type: "custom", CustomType: "checkpoint", Data: json.RawMessage(`{"kind":"turn","state":"s1"}`)},
		{ID: "x", ParentID: "a", Type: "custom", CustomType: "other"},
		{ID: "c", ParentID: "b", Type: "message", Role: "assistant"},
	}}
	cases := []struct {
		name, src, want string
		session         Session
	}{
		{"session_entries: the path to the leaf", `
			local out = {}
			for _, e in ipairs(pi.session_entries()) do out[#out+1] = e.id .. ":" .. e.type .. ":" .. (e.role or e.custom_type) end
			return table.concat(out, " ")`, "a:message:user b:custom:checkpoint c:message:assistant", tree},
		{"session_entries: one custom type, every branch", `
			local out = {}
			for _, e in ipairs(pi.session_entries({all = true, custom_type = "checkpoint"})) do out[#out+1] = e.id .. "=" .. e.data.state end
			return pi.session_leaf() .. " " .. table.concat(out, " ")`, "c b=s1", tree},
		{"session_entries: no tree to read", `return #pi.session_entries() .. " " .. tostring(pi.session_leaf())`, "0 nil", &fakeSession{}},
		{"emit: the first cancel wins", `
			pi.on("before_restore", function(ev) return nil end)
			pi.on("before_restore", function(ev) return {cancel = true, reason = "busy " .. ev.target} end)
			pi.on("before_restore", function() error("never reached") end)
			local r = pi.emit("before_restore", {target = "t1"})
			return tostring(r.cancel) .. " " .. r.reason`, "true busy t1", nil},
		{"emit: a failing handler does not cancel", `
			pi.on("restore", function() error("boom") end)
			return tostring(pi.emit("restore", {}).cancel)`, "false", nil},
		{"emit: pi's own events are not the scripts' to raise", `
			local ok, err = pcall(pi.emit, "tool_call", {})
			return tostring(ok) .. " " .. tostring(err):match("raises only")`, "false raises only", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.opts.Host.Session = tc.session
			r := e.start(t, `pi.register_command{name = "probe", run = function() pi.notify("result: " .. tostring((function() `+tc.src+` end)())) end}`)
			if err := command(t, r, "probe").Run(ctxT(t), ""); err != nil {
				t.Fatal(err)
			}
			if _, ok := e.noticeContaining("result: " + tc.want); !ok {
				t.Errorf("got %v, want result: %s", e.notices(), tc.want)
			}
		})
	}
}

func TestCheckpointRoundTripFromAScript(t *testing.T) {
	e := newEnv(t)
	e.write(t, "a.txt", "one\n")
	r := e.start(t, `pi.register_command{name = "probe", run = function()
		local s1 = assert(pi.checkpoint.snapshot({note = "first"}))
		pi.write_file("a.txt", "two\n")
		pi.write_file("b.txt", "new\n")
		local changes = assert(pi.checkpoint.diff(s1.id))
		local parts = {}
		for _, c in ipairs(changes) do parts[#parts+1] = c.op .. " " .. c.path .. " +" .. c.added .. " -" .. c.removed end
		pi.notify("diff: " .. table.concat(parts, ", "))
		local s2 = assert(pi.checkpoint.snapshot({}))
		pi.write_file("a.txt", "by hand\n")
		local res, err, partial = pi.checkpoint.restore(s1.id, {expected = s2.id})
		pi.notify("conflict: " .. tostring(res) .. " " .. partial.conflicts[1].path .. " " .. tostring(err):match("changed since"))
		res = assert(pi.checkpoint.restore(s1.id, {expected = s2.id, force = true}))
		pi.notify("restored: " .. #res.changes .. " " .. #pi.checkpoint.list() .. " " .. (pi.checkpoint.resolve(s1.id:sub(1, 8)) == s1.id and "resolved" or "not"))
	end}`)
	if err := command(t, r, "probe").Run(ctxT(t), ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"diff: modified a.txt +1 -1, added b.txt +1 -0", "conflict: nil a.txt changed since", "restored: 2 "} {
		if _, ok := e.noticeContaining(want); !ok {
			t.Errorf("no notice %q in %v", want, e.notices())
		}
	}
	if got, _ := os.ReadFile(filepath.Join(e.cwd, "a.txt")); string(got) != "one\n" {
		t.Errorf("a.txt = %q after the restore", got)
	}
	if _, err := os.Stat(filepath.Join(e.cwd, "b.txt")); err == nil {
		t.Error("b.txt survived the restore")
	}
}

func TestRunSubcommand(t *testing.T) {
	cases := []struct {
		name, word       string
		args             []string
		wantCode         int
		wantOut, wantErr string
		wantErrIs        error
	}{
		{"output and status", "hello", []string{"a", "b"}, 3, "args: a,b\n", "to stderr\n", nil},
		{"a word nobody registered", "nope", nil, 2, "", "", ErrNoSubcommand},
		{"a run that raises", "broken", nil, 1, "", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.opts.Disabled = nil
			e.write(t, ".pi/init.lua", `
				pi.register_subcommand{name = "hello", description = "greets", run = function(args, io)
					io.print("args: " .. table.concat(args, ","))
					io.eprint("to stderr")
					return 3
				end}
				pi.register_subcommand{name = "broken", run = function() error("it broke") end}`)
			var out, errb bytes.Buffer
			code, err := RunSubcommand(ctxT(t), e.opts, tc.word, tc.args, &out, &errb)
			if code != tc.wantCode || out.String() != tc.wantOut || errb.String() != tc.wantErr {
				t.Errorf("code %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errb.String(), tc.wantCode, tc.wantOut, tc.wantErr)
			}
			if tc.wantErrIs != nil && !errors.Is(err, tc.wantErrIs) {
				t.Errorf("err = %v, want %v", err, tc.wantErrIs)
			}
			if tc.word == "broken" && (err == nil || !strings.Contains(err.Error(), "it broke")) {
				t.Errorf("err = %v, want the script's error", err)
			}
			if tc.word == "nope" && !strings.Contains(err.Error(), "checkpoints") {
				t.Errorf("the error does not list the words scripts register: %v", err)
			}
		})
	}
}

func command(t *testing.T, r *Runtime, name string) Command {
	t.Helper()
	for _, c := range r.Commands() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no command /%s", name)
	return Command{}
}
