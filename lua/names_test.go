package lua

import (
	"regexp"
	"strings"
	"testing"
)

// The name checks are written by hand so that no regexp is compiled at package init; they
// must accept exactly what the patterns they replace accept.
func TestNameChecksMatchTheirPatterns(t *testing.T) {
	checks := []struct {
		pattern string
		check   func(string) bool
	}{
		{`^[A-Za-z0-9][A-Za-z0-9_:.-]*$`, isCommandName},
		{`^[A-Za-z0-9_-]{1,64}$`, isToolName},
	}
	names := []string{"", "a", "Z9", "plan:mode", "x.y-z_w", "-x", ":x", "_x", ".x", "a b", "a/b",
		"a\n", "\na", "é", "aé", strings.Repeat("a", 64), strings.Repeat("a", 65), "mcp__srv__tool", "a:b:c."}
	for _, c := range checks {
		re := regexp.MustCompile(c.pattern)
		for _, name := range names {
			if got, want := c.check(name), re.MatchString(name); got != want {
				t.Errorf("%s: %q gives %v, the pattern %v", c.pattern, name, got, want)
			}
		}
	}
}

func FuzzNameChecksMatchTheirPatterns(f *testing.F) {
	for _, s := range []string{"", "a", "plan:mode", "-x", strings.Repeat("a", 65)} {
		f.Add(s)
	}
	command, tool := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_:.-]*$`), regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	f.Fuzz(func(t *testing.T, name string) {
		if isCommandName(name) != command.MatchString(name) || isToolName(name) != tool.MatchString(name) {
			t.Errorf("%q: command %v (pattern %v), tool %v (pattern %v)", name,
				isCommandName(name), command.MatchString(name), isToolName(name), tool.MatchString(name))
		}
	})
}
