package lua

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// user_bash: the first handler with an answer decides: a result stands in for the command, a
// block refuses it with a reason; a command nobody answers runs.
func TestUserBashEvent(t *testing.T) {
	e := newEnv(t)
	r := e.start(t, `pi.on("user_bash", function(ev) if ev.command == "quiet" then return nil end end)
pi.on("user_bash", function(ev)
  if ev.command == "rm -rf /" then return {block = true, reason = "not that one"} end
  if ev.command == "fake-ok" then return {result = {output = "ok"}} end
  if ev.command:match("^fake") then
    return {result = {output = "faked in " .. ev.cwd .. " " .. tostring(ev.exclude_from_context), exit_code = 3, truncated = true}}
  end
end)
pi.on("user_bash", function(ev) return {block = true} end)`)
	cases := []struct {
		command string
		exclude bool
		want    UserBash
	}{
		{"rm -rf /", false, UserBash{Blocked: "not that one"}},
		{"fake ls", true, UserBash{Handled: true, Output: "faked in " + e.cwd + " true", Truncated: true}},
		{"quiet", false, UserBash{Blocked: "blocked by a script"}},
		{"fake-ok", false, UserBash{Handled: true, Output: "ok"}},
	}
	for _, c := range cases {
		got := r.UserBashEvent(ctxT(t), c.command, c.exclude)
		code := got.ExitCode
		got.ExitCode = nil
		wantCode := map[string]int{"fake ls": 3}[c.command]
		if got != c.want || (c.want.Handled && (code == nil || *code != wantCode)) {
			t.Errorf("%q: %+v (exit %v), want %+v", c.command, got, code, c.want)
		}
	}
	var none *Runtime
	if got := none.UserBashEvent(ctxT(t), "ls", false); got.Handled || got.Blocked != "" {
		t.Fatalf("no runtime: %+v", got)
	}
	e.noErrors(t)
}

// resources_discover: the paths handlers return (relative ones from the project) become the
// bundled scripts' skills and templates, and theme folders after the packages' themes/.
func TestResourcesDiscover(t *testing.T) {
	e := newEnv(t)
	e.write(t, "extra/skills/lint-fix/SKILL.md", skill("lint-fix", "Fixes lint."))
	e.write(t, "extra/review.md", "---\ndescription: Review the change\n---\nReview $1 please.\n")
	e.write(t, "pkg/themes/x.toml", "")
	e.opts.Packages = []string{filepath.Join(e.cwd, "pkg")}
	e.opts.Host.ActiveTools = func() []string { return []string{"read"} }
	r := e.start(t, `pi.on("resources_discover", function(ev)
  assert(ev.reason == "startup" or ev.reason == "reload", ev.reason)
  return {skill_paths = {"extra/skills"}, prompt_paths = {pi.cwd() .. "/extra/review.md"}, theme_paths = {"extra/themes"}}
end)`)
	res := r.DiscoverResources(ctxT(t), "startup")
	if len(res.Skills) != 1 || res.Skills[0] != filepath.Join(e.cwd, "extra/skills") || len(res.Themes) != 1 {
		t.Fatalf("resources %+v", res)
	}
	var names []string
	for _, c := range r.Commands() {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "skill:lint-fix") || !slices.Contains(names, "review") {
		t.Fatalf("commands %v", names)
	}
	if p := promptWith(t, e, r); !strings.Contains(p, "<name>lint-fix</name>") {
		t.Fatalf("the skill is not in the prompt: %s", p)
	}
	if got := r.Input(ctxT(t), "/review main.go", nil, "interactive").Text; got != "Review main.go please." {
		t.Fatalf("template %q", got)
	}
	want := []string{filepath.Join(e.cwd, "pkg", "themes"), filepath.Join(e.cwd, "extra/themes")}
	if got := r.ThemeDirs(); !slices.Equal(got, want) {
		t.Fatalf("theme dirs %v, want %v", got, want)
	}
	if err := r.Reload(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := r.ThemeDirs(); !slices.Equal(got, want) {
		t.Fatalf("after a reload, theme dirs %v", got)
	}
	if got := r.Input(ctxT(t), "/review a.go", nil, "interactive").Text; got != "Review a.go please." {
		t.Fatalf("after a reload, template %q", got)
	}
	e.noErrors(t)
}
