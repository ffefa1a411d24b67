package lua

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"pi/internal/safefile"
)

//go:embed bundled/*.lua
var bundledFS embed.FS

//go:embed pi.d.lua
var definitions string

// Definitions is the LuaLS definition file for the pi module (pi.d.lua), for a host that
// offers to write it where editors find it.
func Definitions() string { return definitions }

// script is one file to load: name is how messages and Lua errors refer to it.
type script struct {
	name    string
	src     string
	bundled bool
	proto   *lua.FunctionProto // compiled by compileAll, or when the script wakes
	err     error
	wakes   []wakeSpec // its @wake lines: it sleeps until one fires (sleep.go)
}

// compileAll parses and compiles the scripts in parallel, but for those that sleep until
// something wakes them. Compiling is most of the start-up time, it needs no Lua state (so it
// overlaps with building one), and scripts are independent.
func compileAll(scripts []script) (wait func()) {
	var wg sync.WaitGroup
	for i := range scripts {
		if len(scripts[i].wakes) > 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			compileScript(&scripts[i])
		}()
	}
	return wg.Wait
}

// compileScript sets s.proto, or s.err when the source does not compile.
func compileScript(s *script) {
	src := s.src
	if s.bundled {
		src = blankCommentLines(src)
	}
	chunk, err := parse.Parse(strings.NewReader(src), s.name)
	if err == nil {
		s.proto, err = lua.Compile(chunk, s.name)
	}
	s.err = err
}

// blankCommentLines empties whole-line comments of the bundled scripts, which are long
// explanations, before the (slow) scanner reads them; line numbers stay as they are. Only for
// our own scripts: in a user's script such a line could sit inside a long string.
func blankCommentLines(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "--") && !strings.HasPrefix(t, "--[") {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// BundledScripts names the embedded scripts (without .lua), in load order, for pi.toml's list
// of scripts to switch off and for documentation.
func BundledScripts() []string {
	entries, _ := fs.ReadDir(bundledFS, "bundled") // the directory is embedded: it exists
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".lua") {
			names = append(names, strings.TrimSuffix(e.Name(), ".lua"))
		}
	}
	return names
}

// collectScripts lists the scripts in load order: bundled (or their $PI_HOME/lua/ replacement),
// $PI_HOME/init.lua, then the project's .pi/init.lua when the directory is trusted. Problems
// become notices; a missing file is simply not there.
func (r *Runtime) collectScripts(ctx context.Context) (out []script) {
	r.mu.Lock()
	r.sources = map[string]string{}
	r.mu.Unlock()
	for _, name := range r.opts.Disabled {
		if !slices.Contains(BundledScripts(), name) {
			r.notify("warning", "lua: cannot switch off %q: the bundled scripts are %s", name, strings.Join(BundledScripts(), ", "))
		}
	}
	for _, name := range BundledScripts() {
		if slices.Contains(r.opts.Disabled, name) || (name == "mcp" && !r.mcpConfigured()) || (name == "subagents" && !r.subagentsOn()) {
			continue
		}
		if s, ok := r.readScript(filepath.Join(r.opts.PiHome, "lua", name+".lua")); ok {
			out = append(out, s)
			continue
		}
		src, _ := bundledFS.ReadFile("bundled/" + name + ".lua")
		out = append(out, script{name: "bundled/" + name + ".lua", src: string(src), bundled: true})
	}
	if s, ok := r.readScript(filepath.Join(r.opts.PiHome, "init.lua")); ok {
		out = append(out, s)
	}
	defer func() {
		out = r.markSleepers(r.dropIdleBundled(append(append(out, r.packageScripts(ctx)...), r.extensionScripts()...)))
	}()
	if r.opts.NoProject || r.opts.Cwd == "" {
		return out
	}
	project := filepath.Join(r.opts.Cwd, ".pi", "init.lua")
	if _, err := os.Stat(project); err != nil && r.opts.Loaded == nil {
		return out
	}
	if _, ok := r.loadedSource(project); r.opts.Loaded != nil && !ok {
		return out
	}
	if r.projectTrusted(ctx, project) {
		if s, ok := r.readScript(project); ok {
			out = append(out, s)
		}
	}
	return out
}

// mcpConfigured reports whether pi.toml names an MCP server. Without one the mcp script has
// nothing to do, and compiling it would cost every start a few milliseconds.
func (r *Runtime) mcpConfigured() bool {
	servers, _ := r.opts.Host.config("mcp")["servers"].(map[string]any)
	return len(servers) > 0
}

func (r *Runtime) readScript(path string) (script, bool) {
	if r.opts.PiHome == "" && !filepath.IsAbs(path) {
		return script{}, false
	}
	src, ok := r.loadedSource(path)
	if r.opts.Loaded == nil {
		// gopher-lua's parser takes about 150 times the source, so a script file is held to what
		// loadstring compiles.
		data, err := safefile.ReadFile(context.Background(), path, maxChunkBytes)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.notify("error", "lua: cannot read %s: %v", path, err)
		}
		src, ok = string(data), err == nil
	}
	if !ok {
		return script{}, false
	}
	r.mu.Lock()
	r.sources[path] = src
	r.mu.Unlock()
	return script{name: path, src: src}, true
}

// loadedSource is Options.Loaded's source for path; false when there is no Loaded.
func (r *Runtime) loadedSource(path string) (string, bool) {
	if r.opts.Loaded == nil {
		return "", false
	}
	return r.opts.Loaded(path)
}

// Sources are the scripts the runtime read from disk (or took from Options.Loaded) at its
// last load, by path: what a child's Options.Loaded hands back.
func (r *Runtime) Sources() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.sources)
}

// projectTrusted decides whether the project script may run, asking the user when the host
// can and nobody decided yet.
func (r *Runtime) projectTrusted(ctx context.Context, project string) bool {
	if r.opts.Trust {
		return true
	}
	dir := r.opts.Cwd
	trusted, decided, err := TrustDecision(r.opts.PiHome, dir)
	if err != nil {
		r.notify("error", "lua: %v", err)
	}
	if decided {
		if !trusted {
			r.notify("warning", "lua: not loading %s: %s is marked untrusted in %s. Pass --trust to load it for this run.",
				project, dir, trustFile(r.opts.PiHome))
		}
		return trusted
	}
	if r.opts.AskTrust != nil {
		yes, err := r.opts.AskTrust(ctx, dir)
		if errors.Is(err, ErrAskLater) {
			return false // the host asks once its UI is up, then reloads
		}
		if err != nil {
			r.notify("error", "lua: asking whether to trust %s: %v", dir, err)
			return false
		}
		if err := SaveTrust(r.opts.PiHome, dir, yes); err != nil {
			r.notify("error", "lua: %v", err)
		}
		return yes
	}
	r.notify("warning", "lua: not loading %s: this directory is not trusted yet, and project scripts run with your "+
		"permissions. Run pi --trust to load it for this run, or start pi interactively here and answer yes to trust it for good.", project)
	return false
}

// load runs the scripts in order as one task. A script that fails to compile or raises while
// loading is reported with file:line and skipped; what it registered before failing stays.
//
// loadTask only builds the task; compiled waits for compileAll, on the owner goroutine, before
// the first script runs.
func (r *Runtime) loadTask(ctx context.Context, scripts []script, compiled func()) *task {
	i := -1
	t := newTask(ctx, r.opts.HookTimeout, func(v *vm, rets []lua.LValue, err error) *call {
		if i < 0 {
			compiled()
		}
		if i >= 0 && err != nil && (ctx.Err() != nil || errors.Is(err, ErrClosed)) {
			v.script = ""
			return nil // pi is stopping: the rest is not loaded, and that is no news
		}
		if i >= 0 && err != nil {
			r.notify("error", "lua: error while loading %s; pi goes on without the rest of it: %s", scriptLabel(scripts[i].name), cleanError(err))
		}
		for i++; i < len(scripts); i++ {
			s := scripts[i]
			if len(s.wakes) > 0 {
				v.sleeping = append(v.sleeping, s)
				continue
			}
			if s.err != nil {
				r.notify("error", "lua: script not loaded: %s", cleanError(s.err))
				continue
			}
			v.script = s.name
			return &call{fn: v.L.NewFunctionFromProto(s.proto)}
		}
		v.script = ""
		if len(v.sleeping) > 0 {
			v.r.publish(v) // what wakes the sleepers
		}
		return nil
	})
	t.loading = true
	return t
}

// extensionScripts are the -e scripts, which load last: the user named them for this run.
func (r *Runtime) extensionScripts() []script {
	var out []script
	for _, p := range r.opts.Extensions {
		if s, ok := r.readScript(p); ok {
			out = append(out, s)
		} else {
			r.notify("error", "lua: -e %s: no such script", p)
		}
	}
	return out
}

// packageScripts are the packages' scripts: the user's packages, then the project's when it is
// trusted, each package's init.lua first and then its lua/*.lua in name order. NoProject
// (--no-extensions) loads no package at all.
func (r *Runtime) packageScripts(ctx context.Context) []script {
	var dirs []string
	if !r.opts.NoProject {
		dirs = append(dirs, r.opts.Packages...)
	}
	if len(r.opts.ProjectPackages) > 0 && !r.opts.NoProject && r.projectTrusted(ctx, filepath.Join(r.opts.Cwd, ".pi", "packages")) {
		dirs = append(dirs, r.opts.ProjectPackages...)
	}
	r.mu.Lock()
	r.packages = dirs
	r.mu.Unlock()
	var out []script
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "lua", "*.lua"))
		sort.Strings(files)
		for _, f := range append([]string{filepath.Join(dir, "init.lua")}, files...) {
			if s, ok := r.readScript(f); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// scriptLabel names a script in messages: a package's by the package.
func scriptLabel(name string) string {
	dir := filepath.Dir(name)
	if filepath.Base(dir) == "lua" {
		dir = filepath.Dir(dir)
	}
	if filepath.Base(filepath.Dir(dir)) == "packages" {
		return "package " + filepath.Base(dir) + " (" + filepath.Base(name) + ")"
	}
	return filepath.Base(name)
}
