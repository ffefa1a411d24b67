package lua

import (
	"bytes"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// FuzzSplitLines feeds a child's output to splitLines in pieces cut at every split point:
// the lines that come out, with the newlines put back, are the input (less a \r before each
// newline), and no piece is longer than spawnMaxLineBytes.
func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"a\nb\r\nc", "\n\n", "no newline", "x\r", ""} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		n := int(step)%16 + 1
		var partial []byte
		var got [][]byte
		for i := 0; i < len(data); i += n {
			var lines [][]lua.LValue
			lines, partial = splitLines(partial, data[i:min(i+n, len(data))])
			for _, l := range lines {
				got = append(got, []byte(l[0].(lua.LString)))
			}
		}
		want := bytes.Split(data, []byte("\n"))
		last := want[len(want)-1] // what follows the last newline stays partial
		want = want[:len(want)-1]
		if !bytes.Equal(partial, last) {
			t.Fatalf("partial %q, want %q", partial, last)
		}
		if len(got) != len(want) && len(data) < spawnMaxLineBytes {
			t.Fatalf("%d lines from %q, want %d", len(got), data, len(want))
		}
		for i := range got {
			if w := bytes.TrimSuffix(want[i], []byte("\r")); !bytes.Equal(got[i], w) {
				t.Fatalf("line %d: %q, want %q", i, got[i], w)
			}
		}
	})
}
