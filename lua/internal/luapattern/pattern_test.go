package luapattern

import (
	"errors"
	"strings"
	"testing"
)

func TestFindStopsWhenAskedTo(t *testing.T) {
	src := []byte(strings.Repeat("a", 100000))
	calls := 0
	stop := func() error {
		if calls++; calls == 3 {
			return errors.New("deadline")
		}
		return nil
	}
	_, err := Find(strings.Repeat(".-", 5)+"b", src, 0, 1, stop)
	if err == nil || !strings.Contains(err.Error(), "deadline") || calls != 3 {
		t.Fatalf("Find = %v after %d calls of stop, want the stop's error at the third", err, calls)
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		pat, src string
		want     []int // the start and end of each match
	}{
		{"o", "hello world", []int{4, 5, 7, 8}},
		{"%d+", "a12b345", []int{1, 3, 4, 7}},
		{"^a", "aaa", []int{0, 1}},
		{"x*", "ab", []int{0, 0, 1, 1, 2, 2}},
		{"%b()", "f(a(b)c) d", []int{1, 8}},
	}
	for _, tc := range tests {
		ms, err := Find(tc.pat, []byte(tc.src), 0, -1, nil)
		var got []int
		for _, m := range ms {
			got = append(got, m.Capture(0), m.Capture(1))
		}
		if err != nil || !equal(got, tc.want) {
			t.Errorf("Find(%q, %q) = %v, %v; want %v", tc.pat, tc.src, got, err, tc.want)
		}
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Patterns come from scripts: a malformed one is an error, never a crash.
func FuzzFind(f *testing.F) {
	for _, seed := range []string{"%d+", "(%w+)=(%w+)", "%b()", "[^%s]", "(()", "%", "[a-", "%1", "^(a*)$", "%f[%w]"} {
		f.Add(seed, "key=value (x) 123")
	}
	f.Fuzz(func(t *testing.T, pat, src string) {
		if len(src) > 1<<10 || len(pat) > 64 {
			return
		}
		steps := 0
		_, _ = Find(pat, []byte(src), 0, -1, func() error {
			if steps++; steps > 100 {
				return errors.New("too long")
			}
			return nil
		})
	})
}
