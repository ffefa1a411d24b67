package doctor

import (
	"testing"
)

// The turns' figures come from the server: whatever it reports, the verdict is one of the four
// and nothing panics (no division by a zero count or time).
func FuzzPrefixVerdict(f *testing.F) {
	f.Add(2000, 2000.0, 2040, 25.0, 0, 2080, 30.0, 0, 20)
	f.Add(0, 0.0, 0, 0.0, 0, 0, 0.0, 0, 0)
	f.Add(-5, -1.0, 10, 1e300, 99999, 3, -7.0, -2, -1)
	f.Fuzz(func(t *testing.T, p1 int, ms1 float64, p2 int, ms2 float64, c2 int, p3 int, ms3 float64, c3 int, out int) {
		turns := []TurnTiming{{PromptTokens: p1, PromptMs: ms1, OutputTokens: out},
			{PromptTokens: p2, PromptMs: ms2, Cached: c2, OutputTokens: out}, {PromptTokens: p3, PromptMs: ms3, Cached: c3}}
		v, note := prefixVerdict(turns)
		switch v {
		case PrefixReused, PrefixNotReused, PrefixPartly, PrefixUnknown:
		default:
			t.Fatalf("verdict %q", v)
		}
		if note == "" {
			t.Fatal("a verdict without a note")
		}
	})
}
