package lua

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// parseFrontmatter(text) → meta, body. meta is nil when text has no "---" block.
func (v *vm) parseFrontmatter(L *lua.LState) int {
	meta, body := parseFrontmatter(L.CheckString(1))
	if meta == nil {
		L.Push(lua.LNil)
	} else {
		L.Push(v.toLua(meta))
	}
	L.Push(lua.LString(body))
	return 2
}

// parseFrontmatter splits a leading "---" block off text and reads the part of YAML that
// SKILL.md and prompt files use: key: value with plain or quoted scalars, true/false, inline
// [a, b] lists, "- item" lists, one level of nested keys (metadata), and | or > block
// scalars. Anything else is kept as a plain string; frontmatter never fails to parse.
func parseFrontmatter(text string) (map[string]any, string) {
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return nil, text
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, text
	}
	body := strings.Join(lines[end+1:], "\n")
	return parseYAMLBlock(lines[1:end]), strings.TrimPrefix(body, "\n")
}

func parseYAMLBlock(lines []string) map[string]any {
	out := map[string]any{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if isBlankOrComment(line) || indent(line) > 0 {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, rest = strings.TrimSpace(key), strings.TrimSpace(rest)
		j := i + 1
		for j < len(lines) && (isBlankOrComment(lines[j]) || indent(lines[j]) > 0) {
			j++
		}
		nested := lines[i+1 : j]
		switch {
		case rest == "" && len(nested) > 0:
			out[key] = parseNested(nested)
			i = j - 1
		case strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, ">"):
			out[key] = blockScalar(nested, rest[0] == '>')
			i = j - 1
		default:
			out[key] = scalar(rest)
		}
	}
	return out
}

// parseNested reads the indented lines under a key: a "- " list or a map.
func parseNested(lines []string) any {
	var list []any
	var mapLines []string
	cut := -1
	for _, l := range lines {
		if isBlankOrComment(l) {
			continue
		}
		if cut < 0 {
			cut = indent(l)
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "- ") || t == "-" {
			list = append(list, scalar(strings.TrimSpace(strings.TrimPrefix(t, "-"))))
			continue
		}
		if len(l) >= cut {
			mapLines = append(mapLines, l[cut:])
		}
	}
	if list != nil {
		return list
	}
	return parseYAMLBlock(mapLines)
}

func blockScalar(lines []string, folded bool) string {
	var parts []string
	cut := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			parts = append(parts, "")
			continue
		}
		if cut < 0 {
			cut = indent(l)
		}
		if len(l) >= cut {
			l = l[cut:]
		}
		parts = append(parts, l)
	}
	sep := "\n"
	if folded {
		sep = " "
	}
	return strings.TrimSpace(strings.Join(parts, sep))
}

func scalar(s string) any {
	switch {
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		r := strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t")
		return r.Replace(s[1 : len(s)-1])
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	case s == "true" || s == "True" || s == "yes":
		return true
	case s == "false" || s == "False" || s == "no":
		return false
	case len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']':
		var list []any
		for _, e := range strings.Split(s[1:len(s)-1], ",") {
			if e = strings.TrimSpace(e); e != "" {
				list = append(list, scalar(e))
			}
		}
		if list == nil {
			list = []any{}
		}
		return list
	}
	if i := strings.Index(s, " #"); i >= 0 { // a trailing comment
		s = strings.TrimSpace(s[:i])
	}
	return s
}

func isBlankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}

func indent(l string) int {
	return len(l) - len(strings.TrimLeft(l, " \t"))
}
