package codelang

import "testing"

// TestLookup: fence names of a family share its conventions, in any case; an unknown name
// has none.
func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		name, keyword, lineComment string
		block                      bool
	}{
		{"go", "func", "//", true},
		{"Go", "defer", "//", true},
		{"TSX", "await", "//", true},
		{"python", "lambda", "#", false},
		{"bash", "esac", "#", false},
		{"lua", "elseif", "--", false},
		{"toml", "true", "#", false},
	} {
		s := Lookup(tc.name)
		if s == nil || !s.Keywords[tc.keyword] || len(s.Line) != 1 || s.Line[0] != tc.lineComment || (s.BlockOpen != "") != tc.block {
			t.Errorf("Lookup(%q) = %+v, want keyword %q, comment %q, block comments %v", tc.name, s, tc.keyword, tc.lineComment, tc.block)
		}
	}
	if s := Lookup("brainfuck"); s != nil {
		t.Errorf("an unknown language got %+v", s)
	}
}
