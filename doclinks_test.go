package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocLinksResolve fails when a relative link in README.md or docs/*.md names a file that
// does not exist, or a #fragment that no heading of the target produces.
func TestDocLinksResolve(t *testing.T) {
	pages, _ := filepath.Glob("docs/*.md")
	pages = append(pages, "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s: %v", page, target, err)
				continue
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !hasAnchor(t, path, frag) {
				t.Errorf("%s links to %s: no heading of %s makes #%s", page, target, path, frag)
			}
		}
	}
}

// stripCode drops fenced code blocks and inline code, where brackets are not links.
func stripCode(s string) string {
	var b strings.Builder
	inline := regexp.MustCompile("`+[^`]*`+")
	fence := regexp.MustCompile("^\\s*(```+|~~~+)[^`]*$") // not a line that starts with inline code
	fenced := false
	for line := range strings.SplitSeq(s, "\n") {
		if fence.MatchString(line) {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(inline.ReplaceAllString(line, "") + "\n")
		}
	}
	return b.String()
}

// hasAnchor reports whether a heading of the markdown file at path has GitHub's anchor frag.
func hasAnchor(t *testing.T, path, frag string) bool {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(stripCode(string(text)), "\n") {
		if strings.HasPrefix(line, "#") && headingAnchor(strings.TrimLeft(line, "# ")) == frag {
			return true
		}
	}
	return false
}

// headingAnchor is the fragment GitHub gives a heading: lower case, punctuation dropped,
// spaces as hyphens.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
