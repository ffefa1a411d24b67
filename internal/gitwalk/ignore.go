package gitwalk

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"pi/internal/safefile"
)

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	pattern  glob
	negate   bool // `!pattern` re-includes what an earlier rule excluded
	dirOnly  bool // `pattern/` matches directories only
	anchored bool // a slash before the end ties the pattern to the file's directory
}

// ignoreFile is the rules of one .gitignore file and where it sits relative to the walk: a
// path relative to the walk root becomes relative to the file's directory by dropping strip
// (the file lies inside the walk) or prepending add (it lies above the walk root).
type ignoreFile struct {
	strip, add string
	rules      []ignoreRule
}

func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		s := strings.TrimSuffix(string(line), "\r")
		for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
			s = s[:len(s)-1]
		}
		if s == "" || s[0] == '#' {
			continue
		}
		var r ignoreRule
		if s[0] == '!' {
			r.negate, s = true, s[1:]
		} else if strings.HasPrefix(s, `\!`) || strings.HasPrefix(s, `\#`) {
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			r.dirOnly, s = true, strings.TrimRight(s, "/")
		}
		r.anchored = strings.Contains(s, "/")
		if s = strings.TrimPrefix(s, "/"); s != "" {
			r.pattern = compileGlob(s)
			rules = append(rules, r)
		}
	}
	return rules
}

// ignored applies the rules of every file in stack, shallowest first, to rel (slash-separated,
// relative to the walk root): the last rule that matches decides, as in git.
func ignored(stack []*ignoreFile, rel string, isDir bool) bool {
	base := []string{rel[strings.LastIndexByte(rel, '/')+1:]}
	result := false
	for _, f := range stack {
		var segs []string // rel as seen from f's directory, split when a rule needs it
		for i := range f.rules {
			r := &f.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			name := base
			if r.anchored {
				if segs == nil {
					segs = strings.Split(f.add+strings.TrimPrefix(rel, f.strip), "/")
				}
				name = segs
			}
			if r.pattern.match(name) {
				result = !r.negate
			}
		}
	}
	return result
}

// ancestorIgnores loads the .gitignore files between root and the root of the git repository
// that contains it, and the repository's info/exclude, so a search in a subdirectory ignores
// what git would. Outside a repository only the walked tree's own files count.
func ancestorIgnores(root string) []*ignoreFile {
	if exists(filepath.Join(root, ".git")) {
		return loadExclude(root, "")
	}
	var dirs []string // ancestors of root, nearest first, up to the repository's root
	for dir := root; ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil // not inside a repository
		}
		dir = parent
		dirs = append(dirs, dir)
		if exists(filepath.Join(dir, ".git")) {
			break
		}
	}
	repo := dirs[len(dirs)-1]
	relRoot, err := filepath.Rel(repo, root)
	if err != nil {
		return nil
	}
	relRoot = filepath.ToSlash(relRoot) + "/"
	stack := loadExclude(repo, relRoot)
	for i := len(dirs) - 1; i >= 0; i-- {
		data, err := safefile.ReadFile(context.Background(), filepath.Join(dirs[i], ".gitignore"), safefile.MaxTextFile)
		if err != nil {
			continue
		}
		add, _ := filepath.Rel(dirs[i], root)
		stack = append(stack, &ignoreFile{add: filepath.ToSlash(add) + "/", rules: parseIgnore(data)})
	}
	return stack
}

func loadExclude(repo, add string) []*ignoreFile {
	data, err := safefile.ReadFile(context.Background(), filepath.Join(repo, ".git", "info", "exclude"), safefile.MaxTextFile)
	if err != nil {
		return nil
	}
	return []*ignoreFile{{add: add, rules: parseIgnore(data)}}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
