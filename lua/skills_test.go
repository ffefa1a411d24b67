package lua

import (
	"path/filepath"
	"strings"
	"testing"
)

func skill(name, desc string, extra ...string) string {
	var b strings.Builder
	b.WriteString("---\n")
	if name != "" {
		b.WriteString("name: " + name + "\n")
	}
	if desc != "" {
		b.WriteString("description: " + desc + "\n")
	}
	for _, x := range extra {
		b.WriteString(x + "\n")
	}
	b.WriteString("---\n\n# Instructions\nDo the thing.\n")
	return b.String()
}

// promptWith runs before_agent_start with the given active tools.
func promptWith(t *testing.T, e *env, r *Runtime, active ...string) string {
	t.Helper()
	return r.BeforeAgentStart(ctxT(t), "hi", nil, "BASE")
}

func TestSkillValidation(t *testing.T) {
	tests := []struct {
		name, dir, file string
		loaded          string // the name it loads under; "" = not loaded
		warning         string // a warning that must appear; "" = none at all
	}{
		{"valid", "valid-skill", skill("valid-skill", "A valid skill."), "valid-skill", ""},
		{"name from folder", "from-folder", skill("", "Named by its folder."), "from-folder", ""},
		{"name mismatch", "folder", skill("different-name", "Mismatch."), "different-name", `does not match its folder "folder"`},
		{"invalid characters", "Bad_Name", skill("Bad_Name", "Chars."), "Bad_Name", "characters other than a-z"},
		{"too long", strings.Repeat("a", 65), skill(strings.Repeat("a", 65), "Long."), strings.Repeat("a", 65), "longer than 64"},
		{"leading hyphen", "-lead", skill("-lead", "Hyphen."), "-lead", "starts or ends with a hyphen"},
		{"consecutive hyphens", "a--b", skill("a--b", "Hyphens."), "a--b", "consecutive hyphens"},
		{"missing description", "no-desc", skill("no-desc", ""), "", "description is required"},
		{"no frontmatter", "no-front", "# Just text\n", "", "description is required"},
		{"blank description", "blank", skill("blank", `"   "`), "", "description is required"},
		{"long description", "long-desc", skill("long-desc", strings.Repeat("x", 1025)), "long-desc", "longer than 1024"},
		{"unknown fields ignored", "extra", skill("extra", "Has extras.", "author: me", "metadata:\n  version: 1"), "extra", ""},
		{"multiline description", "multi", "---\nname: multi\ndescription: |\n  First line.\n  Second line.\n---\nbody\n", "multi", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.write(t, filepath.Join(".pi", "skills", tc.dir, "SKILL.md"), tc.file)
			e.opts.Host.ActiveTools = func() []string { return []string{"read"} }
			r := e.start(t, "")
			prompt := promptWith(t, e, r)
			if tc.loaded == "" {
				if strings.Contains(prompt, "<skill>") {
					t.Errorf("skill loaded: %s", prompt)
				}
			} else if !strings.Contains(prompt, "<name>"+tc.loaded+"</name>") {
				t.Errorf("skill %q not in prompt:\n%s", tc.loaded, prompt)
			}
			if tc.warning == "" {
				if n := e.notices(); len(n) > 0 {
					t.Errorf("unexpected notices: %v", n)
				}
			} else if n, ok := e.noticeContaining(tc.warning); !ok || n.Level != "warning" {
				t.Errorf("no warning containing %q in %v", tc.warning, e.notices())
			}
		})
	}
}

func TestSkillDiscovery(t *testing.T) {
	e := newEnv(t)
	// The project is a subdirectory of a git repository: skills up to the git root count.
	repo := e.cwd
	e.cwd = filepath.Join(repo, "sub", "dir")
	e.opts.Cwd = e.cwd
	e.write(t, filepath.Join(repo, ".pi/skills/group/nested-skill/SKILL.md"), skill("nested-skill", "Nested two levels down."))
	e.write(t, filepath.Join(repo, ".pi/skills/group/nested-skill/deeper/SKILL.md"), skill("deeper", "Below a skill root: ignored."))
	e.write(t, filepath.Join(repo, ".agents/skills/agents-skill/SKILL.md"), skill("agents-skill", "From .agents."))
	e.write(t, filepath.Join(repo, ".pi/skills/node_modules/dep/SKILL.md"), skill("dep", "In node_modules: ignored."))
	e.write(t, filepath.Join(repo, ".pi/skills/.hidden/SKILL.md"), skill("hidden", "Dot folder: ignored."))
	e.write(t, filepath.Join(repo, "..", ".pi/skills/outside/SKILL.md"), skill("outside", "Above the git root: ignored."))
	e.write(t, filepath.Join(e.cwd, ".pi/skills/local.md"), "---\ndescription: A root .md file.\n---\nLocal.\n")
	e.write(t, filepath.Join(e.home, "skills/global-skill/SKILL.md"), skill("global-skill", "From PI_HOME."))
	e.write(t, filepath.Join(e.home, "..", ".agents/skills/home-agents/SKILL.md"), skill("home-agents", "From ~/.agents."))
	e.opts.Host.ActiveTools = func() []string { return []string{"read", "bash"} }
	r := e.start(t, "")
	prompt := promptWith(t, e, r)
	for _, want := range []string{"nested-skill", "agents-skill", "local", "global-skill", "home-agents"} {
		if !strings.Contains(prompt, "<name>"+want+"</name>") {
			t.Errorf("%s missing from prompt:\n%s", want, prompt)
		}
	}
	for _, not := range []string{"deeper", "dep", "hidden", "outside"} {
		if strings.Contains(prompt, "<name>"+not+"</name>") {
			t.Errorf("%s should not be loaded:\n%s", not, prompt)
		}
	}
	if !strings.HasPrefix(prompt, "BASE\n\n") || !strings.Contains(prompt, "read tool") {
		t.Errorf("prompt section framing: %q", prompt)
	}
	e.noErrors(t)
}

func TestSkillPromptOnlyWithRead(t *testing.T) {
	e := newEnv(t)
	e.write(t, ".pi/skills/one/SKILL.md", skill("one", "One."))
	active := []string{"bash"}
	e.opts.Host.ActiveTools = func() []string { return active }
	r := e.start(t, "")
	if got := promptWith(t, e, r); got != "BASE" {
		t.Errorf("without read: %q", got)
	}
	active = []string{"read"}
	if got := promptWith(t, e, r); !strings.Contains(got, "<name>one</name>") {
		t.Errorf("with read: %q", got)
	}
}

func TestSkillDisableModelInvocationAndExpansion(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.cwd, ".pi/skills/secret")
	e.write(t, filepath.Join(dir, "SKILL.md"), skill("secret", "Only on request.", "disable-model-invocation: true"))
	e.write(t, ".pi/skills/open/SKILL.md", skill("open", "Visible."))
	e.opts.Host.ActiveTools = func() []string { return []string{"read"} }
	r := e.start(t, "")
	prompt := promptWith(t, e, r)
	if strings.Contains(prompt, "secret") || !strings.Contains(prompt, "<name>open</name>") {
		t.Errorf("prompt:\n%s", prompt)
	}
	got := r.Input(ctxT(t), "/skill:secret fix the bug", nil, "interactive").Text
	want := `<skill name="secret" location="` + filepath.Join(dir, "SKILL.md") + "\">\nPaths in this skill are relative to " + dir +
		".\n\n# Instructions\nDo the thing.\n</skill>\n\nfix the bug"
	if got != want {
		t.Errorf("expansion:\n%q\nwant\n%q", got, want)
	}
	if got := r.Input(ctxT(t), "/skill:open", nil, "interactive").Text; strings.Contains(got, "\n\n\n") || !strings.HasSuffix(got, "</skill>") {
		t.Errorf("no args: %q", got)
	}
	if got := r.Input(ctxT(t), "/skill:nope x", nil, "interactive").Text; got != "/skill:nope x" {
		t.Errorf("unknown skill changed: %q", got)
	}
	names := map[string]bool{}
	for _, c := range r.Commands() {
		names[c.Name] = true
	}
	if !names["skill:secret"] || !names["skill:open"] {
		t.Errorf("commands: %v", names)
	}
}

func TestSkillXMLEscapingAndCollisions(t *testing.T) {
	e := newEnv(t)
	e.write(t, filepath.Join(e.home, "skills/calendar/SKILL.md"), skill("calendar", `'A skill with <special> & "characters".'`))
	e.write(t, ".pi/skills/calendar/SKILL.md", skill("calendar", "The second one."))
	e.opts.Host.ActiveTools = func() []string { return []string{"read"} }
	r := e.start(t, "")
	prompt := promptWith(t, e, r)
	if !strings.Contains(prompt, "<description>A skill with &lt;special&gt; &amp; &quot;characters&quot;.</description>") {
		t.Errorf("escaping:\n%s", prompt)
	}
	if strings.Count(prompt, "<skill>") != 1 || strings.Contains(prompt, "The second one") {
		t.Errorf("collision: the first skill must win:\n%s", prompt)
	}
	if _, ok := e.noticeContaining(`name "calendar" is taken`); !ok {
		t.Errorf("no collision warning: %v", e.notices())
	}
}
