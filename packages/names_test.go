package packages

import (
	"regexp"
	"strings"
	"testing"
)

// validName is written by hand so that no regexp is compiled at package init; it must accept
// exactly what the pattern it replaces accepts.
func TestValidNameMatchesItsPattern(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	for _, name := range []string{"", "a", "plan-mode", "pi.tools_2", "-x", ".x", "_x", "a b", "a/b", "..",
		"a\n", "é", strings.Repeat("a", 64), strings.Repeat("a", 65), "a:b"} {
		if got, want := validName(name), re.MatchString(name); got != want {
			t.Errorf("%q gives %v, the pattern %v", name, got, want)
		}
	}
}
