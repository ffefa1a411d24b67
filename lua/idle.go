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
func (r *Runtime) dropIdleBundled(scripts []script) []script {
	for _, s := range scripts {
		if !s.bundled {
			return scripts
		}
	}
	r.mu.Lock()
	packages := len(r.packages)
	r.mu.Unlock()
	if packages > 0 {
		return scripts
	}
	idle := map[string]bool{
		"bundled/skills.lua":    !anyExists(r.skillRoots()),
		"bundled/templates.lua": !anyExists(r.promptDirs()),
	}
	return slices.DeleteFunc(scripts, func(s script) bool { return idle[s.name] })
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

func anyExists(paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { _, err := os.Stat(p); return err == nil })
}

// exists is pi.stat's answer for p: relative paths are taken from the working directory.
func (r *Runtime) exists(p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.opts.Cwd, p)
	}
	_, err := os.Stat(p)
	return err == nil
}
