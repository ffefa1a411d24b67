package lua

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestLoadedReplacesTheFiles: with Options.Loaded a runtime runs the sources it gives, as a
// parent's Sources recorded them, whatever the files hold now, and loads no file it gives
// none for (one that appeared since).
func TestLoadedReplacesTheFiles(t *testing.T) {
	e := newEnv(t)
	initLua := `pi.register_command{name = "first", description = "d", run = function() end}`
	pkg := filepath.Join(e.home, "packages", "p")
	e.write(t, filepath.Join(pkg, "init.lua"), `pi.register_command{name = "pkg", description = "d", run = function() end}`)
	e.opts.Packages = []string{pkg}
	parent := e.start(t, initLua)
	sources := parent.Sources()
	if len(sources) != 2 || sources[filepath.Join(e.cwd, ".pi", "init.lua")] != initLua {
		t.Fatalf("the parent's sources: %q", sources)
	}
	e.write(t, ".pi/init.lua", `pi.register_command{name = "rewritten", description = "d", run = function() end}`)
	e.write(t, filepath.Join(pkg, "lua", "new.lua"), `pi.register_command{name = "appeared", description = "d", run = function() end}`)
	e.opts.Loaded = func(path string) (string, bool) { src, ok := sources[path]; return src, ok }
	child := e.start(t, "")
	var names []string
	for _, c := range child.Commands() {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"first", "pkg"}) {
		t.Fatalf("the child's commands: %v, want the parent's scripts' [first pkg]", names)
	}
	e.noErrors(t)
}
