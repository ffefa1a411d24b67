package gitwalk

import (
	"path"
	"strings"
)

// GlobMatch reports whether the slash-separated name matches pattern: `*`, `?` and `[...]`
// within one path segment, `**` as a whole segment for any number of segments, and `{a,b}`
// alternatives.
func GlobMatch(pattern, name string) bool {
	return compileGlob(pattern).match(strings.Split(name, "/"))
}

// glob is a pattern split once into alternatives of path segments, for patterns that are
// matched against many names (.gitignore rules).
type glob [][]string

func compileGlob(pattern string) glob {
	var g glob
	for _, p := range expandBraces(pattern) {
		g = append(g, strings.Split(p, "/"))
	}
	return g
}

// match reports whether the name, split at slashes, matches.
func (g glob) match(segs []string) bool {
	for _, alt := range g {
		if matchSegments(alt, segs) {
			return true
		}
	}
	return false
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return true
			}
			for i := range name {
				if matchSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		p := pat[0]
		if strings.Contains(p, "**") { // `a**b` inside a segment means `a*b`
			for strings.Contains(p, "**") {
				p = strings.ReplaceAll(p, "**", "*")
			}
		}
		if ok, err := path.Match(p, name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// expandBraces turns `*.{go,mod}` into `*.go` and `*.mod`; unbalanced braces stay literal.
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth, close := 0, -1
	var commas []int
	for i := open; i < len(p) && close < 0; i++ {
		switch p[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				close = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if close < 0 {
		return []string{p}
	}
	var out []string
	prev := open + 1
	for _, c := range append(commas, close) {
		for _, rest := range expandBraces(p[close+1:]) {
			out = append(out, expandBraces(p[:open]+p[prev:c]+rest)...)
		}
		prev = c + 1
	}
	return out
}
