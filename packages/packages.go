// Package packages owns pi packages: folders or git repositories of Lua scripts and resources
// that people share. A package may hold init.lua (loaded after the user's scripts), lua/
// (modules its scripts require), skills/, prompts/, agents/ and themes/, and a package.toml
// (name, version, description). `pi install SOURCE` puts one under $PI_HOME/packages/<name>;
// `-l` under the project's .pi/packages/, which loads only when the project is trusted.
//
// A source is a local folder or a git URL, with an optional pinned ref: URL@v1.2. Git runs
// through internal/gitsafe (no hooks, no program a config names); nothing of the package runs
// at install. Each
// installed package records where it came from in .pi-source, which update reads.
//
// Of this module it imports only internal/gitsafe; main runs the commands and hands the folders to the
// Lua runtime.
package packages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"pi/internal/safefile"
)

// Manifest is package.toml.
type Manifest struct {
	Name        string `toml:"name"`
	Version     string `toml:"version"`
	Description string `toml:"description"`
}

// Package is an installed package.
type Package struct {
	Manifest
	Dir    string // where it is installed
	Source string // what it was installed from, without the ref
	Ref    string // the pinned ref, or ""
}

// sourceFile records a package's source and ref, one per line.
const sourceFile = ".pi-source"

// validName reports whether name fits ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$, checked by hand: the
// regexp, compiled at package init, cost every start of pi 860 allocations.
func validName(name string) bool {
	for i, c := range []byte(name) {
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return false
		}
	}
	return len(name) >= 1 && len(name) <= 64
}

// Root is the packages folder: $PI_HOME/packages, or <project>/.pi/packages when local.
func Root(piHome, project string, local bool) string {
	if local {
		return filepath.Join(project, ".pi", "packages")
	}
	return filepath.Join(piHome, "packages")
}

// List returns the packages under root, sorted by folder name: the order they load in.
func List(root string) ([]Package, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing packages in %s: %w", root, err)
	}
	var out []Package
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, read(filepath.Join(root, e.Name())))
	}
	sort.Slice(out, func(i, j int) bool { return filepath.Base(out[i].Dir) < filepath.Base(out[j].Dir) })
	return out, nil
}

// Dirs are the folders of the packages under root, in load order.
func Dirs(root string) []string {
	pkgs, _ := List(root)
	dirs := make([]string, len(pkgs))
	for i, p := range pkgs {
		dirs[i] = p.Dir
	}
	return dirs
}

// Enabled are the package folders that load: none with --no-extensions (none), else the
// user's, then the project's when project (it is trusted), each in name order.
func Enabled(piHome, cwd string, project, none bool) []string {
	if none {
		return nil
	}
	dirs := Dirs(Root(piHome, cwd, false))
	if project {
		dirs = append(dirs, Dirs(Root(piHome, cwd, true))...)
	}
	return dirs
}

// read loads what a package folder says about itself; a missing or broken package.toml
// leaves the folder's name as the package's.
func read(dir string) Package {
	p := Package{Dir: dir}
	p.Manifest, _ = readManifest(dir)
	if p.Name == "" {
		p.Name = filepath.Base(dir)
	}
	if data, err := safefile.ReadFile(context.Background(), filepath.Join(dir, sourceFile), safefile.MaxTextFile); err == nil {
		lines := strings.SplitN(strings.TrimSpace(string(data)), "\n", 2)
		p.Source = lines[0]
		if len(lines) > 1 {
			p.Ref = strings.TrimSpace(lines[1])
		}
	}
	return p
}

func readManifest(dir string) (Manifest, error) {
	var m Manifest
	data, err := safefile.ReadFile(context.Background(), filepath.Join(dir, "package.toml"), safefile.MaxTextFile)
	if err != nil {
		return m, err
	}
	if err := toml.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, "package.toml"), err)
	}
	return m, nil
}

// ParseSource splits "URL@ref" into the source and its ref. An @ that belongs to the URL (the
// user of git@host:repo, a path with @ in a folder name before the last slash) is not a ref.
func ParseSource(s string) (source, ref string) {
	i := strings.LastIndex(s, "@")
	if i <= 0 || strings.ContainsAny(s[i+1:], "/:") || s[i+1:] == "" {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// isGit says whether source names a git repository rather than a local folder.
func isGit(source string) bool {
	for _, p := range []string{"https://", "http://", "ssh://", "git://", "git@", "file://"} {
		if strings.HasPrefix(source, p) {
			return true
		}
	}
	return strings.HasSuffix(source, ".git")
}

// nameFor is the folder name a source installs under before its manifest is read.
func nameFor(source string) string {
	base := filepath.Base(strings.TrimRight(strings.TrimPrefix(source, "file://"), "/"))
	if i := strings.LastIndex(base, ":"); i >= 0 {
		base = base[i+1:]
	}
	return strings.TrimSuffix(base, ".git")
}
