package lua

import (
	"os"
	"path/filepath"
	"slices"
)

// dropIdleBundled leaves out the bundled skills and templates scripts when they could find
// nothing to do: no folder where they look exists, and no other script or package could hand
// them paths (resources_discover). Compiling the two costs every start about half of the Lua
// start-up, so a run without skills or templates should not pay it. The folders are those the
// scripts search at load (skills.lua's skill_roots, templates.lua's load_dir calls); an
// existing folder, even an empty one, loads the script as before.
//
// The bundled permissions script is left out when the policy is mode auto with no rules: it
// would register no guard then (its last lines), and pi asks no guard's approval.
func (r *Runtime) dropIdleBundled(scripts []script) []script {
	idle := map[string]bool{"bundled/permissions.lua": permissionsIdle(r.opts.Host.permissions())}
	if r.onlyBundled(scripts) {
		idle["bundled/skills.lua"] = !slices.ContainsFunc(r.skillRoots(), r.exists)
		idle["bundled/templates.lua"] = !slices.ContainsFunc(r.promptDirs(), r.exists)
	}
	return slices.DeleteFunc(scripts, func(s script) bool { return s.bundled && idle[s.name] })
}

// onlyBundled reports whether no script but the bundled ones loads and no package does: nothing
// could add skill or prompt paths through resources_discover.
func (r *Runtime) onlyBundled(scripts []script) bool {
	r.mu.Lock()
	packages := len(r.packages)
	r.mu.Unlock()
	return packages == 0 && !slices.ContainsFunc(scripts, func(s script) bool { return !s.bundled })
}

// permissionsIdle is permissions.lua's test for registering no guard: mode auto, no rules.
func permissionsIdle(policy map[string]any) bool {
	if policy["mode"] != "auto" {
		return false
	}
	for _, key := range []string{"allow", "ask", "deny"} {
		switch rules := policy[key].(type) {
		case nil:
		case []any:
			if len(rules) > 0 {
				return false
			}
		default:
			return false // a shape this check does not know: let the script decide
		}
	}
	return true
}

// skillRoots are skills.lua's roots without packages: $PI_HOME/skills, ~/.agents/skills, and
// .pi/skills and .agents/skills from the working directory up to the repository's top.
func (r *Runtime) skillRoots() []string {
	var roots []string
	if r.opts.PiHome != "" {
		roots = append(roots, r.opts.PiHome+"/skills")
	}
	if home, ok := os.LookupEnv("HOME"); ok {
		roots = append(roots, home+"/.agents/skills")
	}
	for dir := r.opts.Cwd; dir != ""; {
		roots = append(roots, dir+"/.pi/skills", dir+"/.agents/skills")
		if r.exists(dir + "/.git") {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir || parent == "." {
			break
		}
		dir = parent
	}
	return roots
}

// promptDirs are templates.lua's folders without packages.
func (r *Runtime) promptDirs() []string {
	dirs := []string{r.opts.Cwd + "/.pi/prompts"}
	if r.opts.PiHome != "" {
		dirs = append(dirs, r.opts.PiHome+"/prompts")
	}
	return dirs
}

// exists is pi.stat's answer for p: relative paths are taken from the working directory.
func (r *Runtime) exists(p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.opts.Cwd, p)
	}
	_, err := os.Stat(p)
	return err == nil
}
