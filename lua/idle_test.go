package lua

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The bundled skills and templates scripts are compiled only where they can find work: a run
// with no skill or prompt folder and no other script skips them, any folder they search
// brings them back, and so does any script or package that could hand them paths.
func TestIdleBundledScriptsAreLeftOut(t *testing.T) {
	bundled := []script{
		{name: "bundled/permissions.lua", bundled: true},
		{name: "bundled/skills.lua", bundled: true},
		{name: "bundled/templates.lua", bundled: true},
	}
	all := []string{"bundled/permissions.lua", "bundled/skills.lua", "bundled/templates.lua"}
	tests := []struct {
		name     string
		dirs     []string // made under the test's root; repo/.git stops the walk up at repo
		extra    []script
		packages []string
		want     []string
	}{
		{"nothing to find", []string{"repo/.git"}, nil, nil, []string{"bundled/permissions.lua"}},
		{"a prompts folder in PI_HOME", []string{"repo/.git", "pihome/prompts"}, nil, nil, []string{"bundled/permissions.lua", "bundled/templates.lua"}},
		{"the project's prompts", []string{"repo/project/.pi/prompts"}, nil, nil, []string{"bundled/permissions.lua", "bundled/templates.lua"}},
		{"a skills folder in PI_HOME", []string{"repo/.git", "pihome/skills"}, nil, nil, []string{"bundled/permissions.lua", "bundled/skills.lua"}},
		{"~/.agents/skills", []string{"repo/.git", "home/.agents/skills"}, nil, nil, []string{"bundled/permissions.lua", "bundled/skills.lua"}},
		{"skills at the repository's top", []string{"repo/.git", "repo/.agents/skills"}, nil, nil, []string{"bundled/permissions.lua", "bundled/skills.lua"}},
		{"skills above the repository do not count", []string{"repo/.git", ".pi/skills"}, nil, nil, []string{"bundled/permissions.lua"}},
		{"skills above a project outside any repository", []string{".pi/skills"}, nil, nil, []string{"bundled/permissions.lua", "bundled/skills.lua"}},
		{"a user script could add paths", []string{"repo/.git"}, []script{{name: "init.lua"}}, nil, append(all, "init.lua")},
		{"a package could hold skills and prompts", []string{"repo/.git"}, nil, []string{"pkg"}, all},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, d := range append([]string{"repo/project", "home"}, tc.dirs...) {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("HOME", filepath.Join(root, "home"))
			r := &Runtime{opts: Options{PiHome: filepath.Join(root, "pihome"), Cwd: filepath.Join(root, "repo", "project"),
				Host: Host{Permissions: func() map[string]any { return map[string]any{"mode": "ask"} }}}, packages: tc.packages}
			var got []string
			for _, s := range r.dropIdleBundled(append(slices.Clone(bundled), tc.extra...)) {
				got = append(got, s.name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("loaded %v, want %v", got, tc.want)
			}
		})
	}
}

// With mode auto and no rules the permissions script would register no guard; any rule, any
// other mode, or a policy of a shape the check does not know loads it.
func TestIdlePermissionsScriptIsLeftOut(t *testing.T) {
	tests := []struct {
		name   string
		policy map[string]any
		idle   bool
	}{
		{"auto, no rules", map[string]any{"mode": "auto", "allow": []any{}, "ask": []any{}, "deny": []any{}}, true},
		{"auto, rules absent", map[string]any{"mode": "auto"}, true},
		{"auto with an allow rule", map[string]any{"mode": "auto", "allow": []any{"bash:git status"}}, false},
		{"auto with a remembered answer", map[string]any{"mode": "auto", "allow": []any{"write"}, "deny": []any{}}, false},
		{"auto with a deny rule", map[string]any{"mode": "auto", "deny": []any{"bash:rm"}}, false},
		{"ask", map[string]any{"mode": "ask"}, false},
		{"read-only", map[string]any{"mode": "read-only"}, false},
		{"rules of another shape", map[string]any{"mode": "auto", "deny": []string{"bash:rm"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := permissionsIdle(tc.policy); got != tc.idle {
				t.Errorf("permissionsIdle(%v) = %v, want %v", tc.policy, got, tc.idle)
			}
		})
	}
	r := &Runtime{opts: Options{Cwd: t.TempDir()}}                     // no Permissions: the host's policy is auto
	own := []script{{name: "bundled/permissions.lua", bundled: false}} // $PI_HOME/lua/permissions.lua
	if got := r.dropIdleBundled(own); len(got) != 1 {
		t.Errorf("a user's own permissions.lua was left out: %v", got)
	}
}
