package lua

import (
	"flag"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitFlags(t *testing.T) {
	known := flag.NewFlagSet("pi", flag.ContinueOnError)
	known.String("model", "", "")
	known.Bool("trust", false, "")
	cases := []struct {
		args  []string
		rest  []string
		flags map[string]string
		next  map[string]string
	}{
		{[]string{"--plan", "hi"}, []string{"hi"}, map[string]string{"plan": "true"}, map[string]string{"plan": "hi"}},
		{[]string{"--model", "x", "--depth=3", "go"}, []string{"--model", "x", "go"}, map[string]string{"depth": "3"}, map[string]string{}},
		{[]string{"-p", "--trust", "--", "--plan"}, []string{"-p", "--trust", "--", "--plan"}, map[string]string{}, map[string]string{}},
		{[]string{"--model=y"}, []string{"--model=y"}, map[string]string{}, map[string]string{}},
		{[]string{"--model", "--plan", "-x"}, []string{"--model", "--plan", "-x"}, map[string]string{}, map[string]string{}},
		{[]string{"--a", "--b", "@f", "--c", "-p"}, []string{"@f", "-p"}, map[string]string{"a": "true", "b": "true", "c": "true"}, map[string]string{}},
	}
	for _, tc := range cases {
		rest, flags := SplitFlags(tc.args, known)
		if !reflect.DeepEqual(rest, tc.rest) || !reflect.DeepEqual(flags.Values, tc.flags) || !reflect.DeepEqual(flags.Next, tc.next) {
			t.Errorf("%q: rest %q flags %v next %v", tc.args, rest, flags.Values, flags.Next)
		}
	}
}

// A bare flag's next word is a string flag's value (and leaves the prompts), a boolean
// flag's is a prompt; --name=value needs no word.
func TestStringFlagTakesNextWord(t *testing.T) {
	e := newEnv(t)
	_, e.opts.Flags = SplitFlags([]string{"--depth", "3", "--plan", "fix it", "--mode-x", "deep", "--name=ann", "go"}, flag.NewFlagSet("pi", flag.ContinueOnError))
	r := e.start(t, `pi.register_flag{name = "depth", type = "string"}
pi.register_flag{name = "plan", type = "boolean"}
pi.register_flag{name = "name", type = "string"}
pi.register_command{name = "show", run = function()
  pi.notify(pi.flag("depth") .. " " .. tostring(pi.flag("plan")) .. " " .. pi.flag("name") .. " " .. pi.flag("mode-x"), "info")
end}`)
	if got := r.TakeFlagWords([]string{"3", "fix it", "deep", "go"}); strings.Join(got, "|") != "fix it|deep|go" {
		t.Fatalf("prompts %q", got)
	}
	runAndReadCommand(t, r, "show")
	if _, ok := e.noticeContaining("3 true ann true"); !ok {
		t.Fatalf("flags: %+v", e.notices())
	}
}

func FuzzSplitFlags(f *testing.F) {
	f.Add("--plan", "--x=1")
	f.Fuzz(func(t *testing.T, a, b string) {
		rest, flags := SplitFlags([]string{a, b}, flag.NewFlagSet("pi", flag.ContinueOnError))
		if len(rest)+len(flags.Values) > 2 || len(flags.Next) > 1 {
			t.Fatalf("%q %q → %q %+v", a, b, rest, flags)
		}
	})
}

func TestFlagsShortcutsAndExtensions(t *testing.T) {
	e := newEnv(t)
	extra := e.write(t, "extra.lua", `pi.register_command{name = "extra", run = function() end}`)
	e.opts.Extensions = []string{extra}
	e.opts.Flags = Flags{Values: map[string]string{"plan": "true", "depth": "3", "raw": "x"}}
	r := e.start(t, `
pi.register_flag{name = "plan", type = "boolean", description = "start in plan mode", default = false}
pi.register_flag{name = "depth", type = "string", default = "1"}
pi.register_flag{name = "quiet", type = "boolean", default = false}
pi.register_shortcut{key = "Ctrl+Alt+P", description = "toggle plan mode", run = function() _G.result = "pressed" end}
pi.register_command{name = "t", run = function() end}
pi.register_tool{name = "get", description = "d", execute = function()
  return {content = tostring(pi.flag("plan")) .. " " .. pi.flag("depth") .. " " .. tostring(pi.flag("quiet")) .. " " ..
    pi.flag("raw") .. " " .. tostring(pi.flag("none")) .. " " .. tostring(_G.result)} end}`)
	scs := r.Shortcuts()
	if len(scs) != 1 || scs[0].Key != "ctrl+alt+p" || scs[0].Description != "toggle plan mode" {
		t.Fatalf("shortcuts %+v", scs)
	}
	if err := scs[0].Run(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got, want := runAndRead(t, r), "true 3 false x nil pressed"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var names []string
	for _, c := range r.Commands() {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"extra", "t"}) {
		t.Errorf("commands %q: the -e script did not load, or a shortcut shows as a command", names)
	}
	e.noErrors(t)
}

// Packages load after the user's scripts, in the order given, each init.lua then lua/*.lua;
// their skills and prompts join the commands; a failing package is named and the rest load;
// the project's packages wait for trust.
func TestPackagesLoad(t *testing.T) {
	e := newEnv(t)
	pkgs := filepath.Join(e.home, "packages")
	e.write(t, filepath.Join(pkgs, "a-broken", "init.lua"), `error("boom")`)
	e.write(t, filepath.Join(pkgs, "hello", "init.lua"), `pi.register_command{name = "hello", run = function() end}`)
	e.write(t, filepath.Join(pkgs, "hello", "lua", "extra.lua"), `pi.register_command{name = "extra", run = function() end}`)
	e.write(t, filepath.Join(pkgs, "hello", "skills", "wave", "SKILL.md"), "---\nname: wave\ndescription: Wave at the user.\n---\nWave.\n")
	e.write(t, filepath.Join(pkgs, "hello", "prompts", "greet.md"), "---\ndescription: greet someone\n---\nSay hello to $1.\n")
	project := e.write(t, filepath.Join(e.cwd, ".pi", "packages", "local", "init.lua"), `pi.register_command{name = "local", run = function() end}`)
	e.write(t, filepath.Join(e.home, "init.lua"), `pi.register_command{name = "user", run = function() end}`)
	e.opts.Packages = []string{filepath.Join(pkgs, "a-broken"), filepath.Join(pkgs, "hello")}
	e.opts.ProjectPackages = []string{filepath.Dir(project)}
	e.opts.Trust = false
	r := e.start(t, "")
	names := map[string]string{}
	for _, c := range r.Commands() {
		names[c.Name] = c.Description
	}
	for _, want := range []string{"hello", "extra", "skill:wave", "greet", "user"} {
		if _, ok := names[want]; !ok {
			t.Errorf("no /%s in %v", want, names)
		}
	}
	if _, ok := names["local"]; ok {
		t.Error("an untrusted project's package loaded")
	}
	if n, ok := e.noticeContaining("boom"); !ok || !strings.Contains(n.Message, "package a-broken (init.lua)") {
		t.Errorf("the failing package is not named: %+v", e.notices())
	}
	e.opts.NoProject = true // --no-extensions: no package loads, the user's neither
	r = e.start(t, "")
	for _, c := range r.Commands() {
		if c.Name == "hello" || c.Name == "skill:wave" || c.Name == "greet" {
			t.Errorf("with --no-extensions a package's /%s is there", c.Name)
		}
	}
}
