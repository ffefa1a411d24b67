package mdext

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
)

// Input that would make a careless scan quadratic: each case is 200-800 KB, which takes
// milliseconds when the work is linear and minutes when it is not.
func TestHostileInputStaysLinear(t *testing.T) {
	const n = 50_000
	cases := map[string]string{
		"closing parens after a URL": "http://a.org/" + strings.Repeat(")", 16*n),
		"entity-like tails":          "www.a.org/" + strings.Repeat("&a;", n),
		"trailing punctuation":       "www.a.org/" + strings.Repeat("?.", 2*n),
		"tildes of both lengths":     strings.Repeat("~a ~~b ", n/2),
		"many delimiter rows":        strings.Repeat("| a | b |\n| - |\n", n/4),
		"one wide row":               "|" + strings.Repeat(" a |", n) + "\n|" + strings.Repeat("-|", n) + "\n",
		"escaped pipes in code":      "| `" + strings.Repeat("\\|", 2*n) + "` |\n|-|\n",
		"many task markers":          strings.Repeat("- [x] [ ] ", n/2),
	}
	md := goldmark.New(goldmark.WithExtensions(GFM{}))
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			var out bytes.Buffer
			if err := md.Convert([]byte(src), &out); err != nil {
				t.Fatal(err)
			}
			// Generous for a loaded machine; a quadratic scan of 200 KB takes far longer.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("%d bytes took %v", len(src), d)
			}
		})
	}
}
