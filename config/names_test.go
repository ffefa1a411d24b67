package config

import (
	"regexp"
	"strings"
	"testing"
)

// isRuleTool is written by hand so that no regexp is compiled at package init; it must accept
// exactly what the pattern it replaces accepts.
func TestRuleToolMatchesItsPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	for _, name := range []string{"", "bash", "mcp__fs__read", "-x", "a.b", "a b", "a\n", "é",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "a:b"} {
		if got, want := isRuleTool(name), re.MatchString(name); got != want {
			t.Errorf("%q gives %v, the pattern %v", name, got, want)
		}
	}
}
