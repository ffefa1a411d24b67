package subagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"pi/internal/safefile"
)

// Type is an agent type: what a child is told and may use.
type Type struct {
	Name        string
	Description string
	Tools       []string // nil: the default tools
	Model       string   // "" : the parent's
	Thinking    string   // "" : the parent's
	MaxTurns    int      // 0: no limit
	Prompt      string   // the child's system prompt; "" keeps pi's
	Source      string   // "built-in", or the file
}

// Nesting reports whether a child of this type may start children: its tools name Agent.
func (t Type) Nesting() bool {
	for _, n := range t.Tools {
		if n == "Agent" {
			return true
		}
	}
	return false
}

// Builtins are the two types every session has.
func Builtins() []Type {
	return []Type{
		{Name: "general-purpose", Description: "Does a multi-step task with the default tools and reports the outcome.", Source: "built-in"},
		{Name: "explore", Description: "Reads, searches and lists files (read-only) and reports what it found, briefly.",
			Tools: []string{"read", "grep", "find", "ls"}, Source: "built-in",
			Prompt: "You are an explorer working for another agent. Use read, grep, find and ls to answer its question. " +
				"You cannot change files. Answer briefly: the facts found, with file paths and line numbers, no padding."},
	}
}

// LoadTypes reads the agent-type files: the built-ins, then $PI_HOME/agents/*.md, then the
// agents/*.md of each package folder in packageDirs, then the project's .pi/agents/*.md when
// project is true (the directory is trusted); a later type replaces an earlier one of the same
// name. A file that cannot be used is reported in problems (and on warn, a line each, when it
// is not nil) and skipped.
func LoadTypes(piHome, cwd string, project bool, packageDirs []string, warn io.Writer) (types []Type, problems []string) {
	byName := map[string]Type{}
	for _, t := range Builtins() {
		byName[t.Name] = t
	}
	dirs := []string{filepath.Join(piHome, "agents")}
	for _, p := range packageDirs {
		dirs = append(dirs, filepath.Join(p, "agents"))
	}
	if project && cwd != "" {
		dirs = append(dirs, filepath.Join(cwd, ".pi", "agents"))
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.md"))
		if err != nil {
			continue
		}
		sort.Strings(files)
		for _, f := range files {
			t, err := readType(f)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			byName[t.Name] = t
		}
	}
	for _, t := range byName {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	for i := 0; warn != nil && i < len(problems); i++ {
		fmt.Fprintln(warn, "pi: warning:", problems[i])
	}
	return types, problems
}

func readType(path string) (Type, error) {
	data, err := safefile.ReadFile(context.Background(), path, safefile.MaxTextFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Type{}, fmt.Errorf("agent type %s: %w", path, err)
	}
	t, err := ParseType(string(data))
	if err != nil {
		return Type{}, fmt.Errorf("agent type %s: %w", path, err)
	}
	if t.Name == "" {
		t.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	t.Source = path
	return t, nil
}

// ParseType reads an agent-type file: a "---" frontmatter block of key: value lines (name,
// description, tools as a comma list or [a, b], model, thinking, max_turns), then the body,
// the child's system prompt.
func ParseType(text string) (Type, error) {
	meta, body := splitFrontmatter(text)
	t := Type{Name: meta["name"], Description: meta["description"], Model: meta["model"],
		Thinking: meta["thinking"], Prompt: strings.TrimSpace(body)}
	if s, ok := meta["tools"]; ok {
		t.Tools = []string{}
		for _, n := range strings.Split(strings.Trim(s, "[]"), ",") {
			if n = strings.Trim(strings.TrimSpace(n), `"'`); n != "" {
				t.Tools = append(t.Tools, n)
			}
		}
	}
	if s := meta["max_turns"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return Type{}, fmt.Errorf("max_turns %q: want a whole number", s)
		}
		t.MaxTurns = n
	}
	if strings.ContainsAny(t.Name, " \t/\\") {
		return Type{}, fmt.Errorf("name %q: use no spaces or slashes", t.Name)
	}
	return t, nil
}

// splitFrontmatter parses a leading "---" block of flat key: value lines (quotes around a
// value are dropped); without one, meta is empty and body is the whole text.
func splitFrontmatter(text string) (map[string]string, string) {
	meta := map[string]string{}
	text = strings.ReplaceAll(strings.TrimPrefix(text, "\ufeff"), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return meta, text
	}
	head, body, ok := strings.Cut(rest, "\n---")
	if !ok {
		return map[string]string{}, text
	}
	body = strings.TrimPrefix(strings.TrimLeft(body, "-"), "\n")
	for _, line := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		meta[strings.TrimSpace(k)] = v
	}
	return meta, body
}
