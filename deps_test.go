package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// everyMayImport are the helpers any package may use: the one way to read a file pi is pointed
// at (regular files only, bounded by bytes read).
var everyMayImport = []string{"internal/safefile"}

// allowedImports is the layering of pi's packages, stated as policy: the packages of this
// module that each package's non-test files may import. A package missing from the table fails
// the test, so a new package is placed on purpose; a new edge is added here, with its reason,
// or not at all. Test files may import what they need (helpers, fakes).
var allowedImports = map[string][]string{
	// Leaves: they import nothing of ours but everyMayImport.
	"internal/atomicfile": nil, "internal/cbor": nil, "internal/chattest": nil,
	"internal/cputime": nil, "internal/gitwalk": nil, "internal/mcptest": nil, "internal/mdext": nil, "internal/codelang": nil,
	"internal/ollamatest": nil, "internal/proc": nil, "internal/changelog": nil, "internal/atfile": nil,
	// Helpers for tests only (as net/http/httptest): fakes and readers both live/ and the root use.
	"internal/pitest": {"provider", "provider/faux", "session"}, "internal/realpath": nil,
	"internal/sandbox": nil, "internal/secrets": nil, "internal/testwait": nil, "extui": nil,
	"internal/safefile": nil, "internal/gitsafe": nil, "lua/internal/luapattern": nil,
	"tui/theme": nil, "provider": nil, "provider/realserver": nil,
	// pi's git commands run no repository code; pi install clones through them.
	"packages": {"internal/gitsafe"},

	// The message model's neighbours: adapters speak provider's types and share the wire code.
	// The wire code redacts keys and header tokens from the errors it reports.
	"provider/internal/wire":   {"provider", "internal/secrets"},
	"provider/internal/replay": {"provider", "provider/textcalls"}, // the adapters' shared test scenarios
	"provider/textcalls":       {"provider"},
	"provider/faux":            {"provider"},
	"provider/ollamasetup":     nil, // starts Ollama and pulls a model through its own API client
	"provider/ollama":          {"provider", "provider/internal/wire", "provider/textcalls"},
	"provider/openai":          {"provider", "provider/internal/wire", "provider/textcalls"},
	"provider/anthropic":       {"provider", "provider/internal/wire", "provider/textcalls"},

	// One job each, on the message model.
	"images":     {"provider"},
	"session":    {"provider", "internal/atfile"}, // an @file's block is shown by its name and size
	"rpcwire":    {"provider", "session"},         // pi's RPC shapes carry messages, models and tree entries
	"export":     {"internal/atfile", "internal/codelang", "internal/mdext", "provider", "session"},
	"tools":      {"provider", "images", "internal/atfile", "internal/gitwalk", "internal/proc"},
	"prompt":     {"provider", "tools"},
	"permission": {"internal/atomicfile", "internal/realpath"},
	// config builds the configured providers, so it knows the adapters; it reads the sandbox's
	// settings and writes pi.toml atomically.
	"config": {"provider", "provider/anthropic", "provider/ollama", "provider/openai",
		"internal/atomicfile", "internal/proc", "internal/sandbox", "internal/secrets"},
	// pi.checkpoint hands the hashing and copying of the project's files to checkpoint.
	"lua": {"provider", "tools", "internal/atomicfile", "internal/proc", "internal/realpath",
		"lua/internal/luapattern", "checkpoint"},
	// The snapshot store walks the project as git sees it, and never runs git.
	"checkpoint": {"internal/gitwalk"},
	// eval names the adapters' APIs in its report and counts calls recovered from text; the
	// agent comes from main as a function.
	"eval": {"provider", "provider/anthropic", "provider/ollama", "provider/openai",
		"provider/textcalls", "internal/proc"},

	// pi doctor probes models through config's providers, reads their timings and recovered
	// text calls, runs a few eval tasks, and writes pi.toml atomically.
	"doctor": {"config", "eval", "provider", "provider/ollama", "provider/textcalls", "internal/atomicfile"},

	// The loop and what runs on it.
	"agent":    {"provider", "tools"},
	"subagent": {"agent", "provider", "session", "internal/gitsafe"}, // worktrees, through safe git
	// The server holds live sessions' agents and records; their runtimes come from main.
	"server": {"agent", "config", "extui", "internal/cbor", "provider", "rpcwire", "session"},

	// Terminal front-end parts. tui draws provider's messages; settingsmenu saves to pi.toml
	// (config) and offers the agent's queue modes; subagents shows a manager's children and
	// reads their agent events and session entries.
	"tui":              {"images", "internal/atfile", "internal/codelang", "internal/gitwalk", "internal/mdext", "provider", "tui/theme"},
	"tui/settingsmenu": {"agent", "config", "tui"},
	"tui/subagents":    {"agent", "provider", "session", "subagent", "tui"},
	// The terminal UI's controller, over a Session the local and the attached sides implement.
	// It attaches a typed prompt's @files (tools) once for both sides, as the command line does.
	"termui": {"config", "internal/changelog", "provider", "rpcwire", "session", "tools", "tui", "tui/settingsmenu"},
	// pi attach: the terminal UI's controller over the server's protocol and pi's RPC shapes.
	"remote": {"config", "images", "provider", "rpcwire", "server", "session", "termui", "tui"},

	// One live session: Send, the work in flight, the recorder, settings, the scripts' side,
	// the children. It knows no front end: no tui, remote, server, nor the root.
	"live": {"agent", "config", "export", "images", "internal/atfile", "internal/proc", "internal/sandbox", "lua",
		"packages", "permission", "prompt", "provider", "provider/faux", "session", "subagent", "tools"},

	// The SQLite store: pi's session lines in a database, behind session.Store.
	"session/sqlitestore": {"provider", "session"},

	// The root: the process, the CLI and the front ends' adapters. Nothing imports it.
	".": {"*"},
}

const modulePath = "pi"

// TestPackageLayering fails when a package imports one of ours that the table does not allow
// it, or when a package is not in the table.
func TestPackageLayering(t *testing.T) {
	pkgs := sourcePackages(t)
	for dir, imports := range pkgs {
		allowed, ok := allowedImports[dir]
		if !ok {
			t.Errorf("package %s is not in deps_test.go's table: say what it may import", dir)
			continue
		}
		for _, imp := range imports {
			if imp == modulePath {
				t.Errorf("%s imports the root package; nothing may", dir)
				continue
			}
			rel := strings.TrimPrefix(imp, modulePath+"/")
			if !slices.Contains(allowed, "*") && !slices.Contains(allowed, rel) && !slices.Contains(everyMayImport, rel) {
				t.Errorf("%s imports %s, which deps_test.go does not allow it", dir, imp)
			}
		}
	}
	for dir := range allowedImports {
		if _, ok := pkgs[dir]; !ok {
			t.Errorf("deps_test.go lists %s, which has no Go files", dir)
		}
	}
}

// sourcePackages maps each folder of the module holding non-test Go files to the module's
// packages those files import.
func sourcePackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if _, ok := pkgs[dir]; !ok {
			pkgs[dir] = nil
		}
		for _, spec := range f.Imports {
			imp := strings.Trim(spec.Path.Value, `"`)
			if (imp == modulePath || strings.HasPrefix(imp, modulePath+"/")) && !slices.Contains(pkgs[dir], imp) {
				pkgs[dir] = append(pkgs[dir], imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's imports: %v", err)
	}
	return pkgs
}
