package gitwalk

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "dir/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "x/y/a.go", true},
		{"src/**", "src/a/b", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"*.{ts,tsx}", "c.tsx", true},
		{"*.{ts,tsx}", "c.js", false},
		{"[ab]?.txt", "bz.txt", true},
		{"{a,b", "{a,b", true},
	}
	for _, tc := range tests {
		if got := GlobMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("GlobMatch(%q, %q) = %v", tc.pattern, tc.name, got)
		}
	}
}
