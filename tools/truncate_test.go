package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateHead(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		lines     int
		bytes     int
		want      string
		by        string
		firstOver bool
	}{
		{"fits", "a\nb\n", 5, 100, "a\nb\n", "", false},
		{"empty", "", 5, 100, "", "", false},
		{"by lines", "a\nb\nc\nd", 2, 100, "a\nb", "lines", false},
		{"by lines, trailing newline", "a\nb\nc\n", 2, 100, "a\nb", "lines", false},
		{"exactly max lines with final newline", "a\nb\n", 2, 100, "a\nb\n", "", false},
		{"by bytes keeps whole lines", "aaaa\nbbbb\ncccc", 100, 10, "aaaa\nbbbb", "bytes", false},
		{"newline pushes over", "aaaa\nbbbb\n", 100, 9, "aaaa\nbbbb", "bytes", false},
		{"first line over", "aaaaaaaaaaaa\nb", 100, 5, "", "bytes", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, tr := TruncateHead(tc.in, tc.lines, tc.bytes)
			if got != tc.want || tr.TruncatedBy != tc.by || tr.FirstLineExceedsLimit != tc.firstOver {
				t.Fatalf("TruncateHead(%q) = %q, %+v; want %q by %q firstOver=%v", tc.in, got, tr, tc.want, tc.by, tc.firstOver)
			}
			if tr.Truncated != (tc.by != "") || tr.OutputBytes != len(got) || tr.TotalBytes != len(tc.in) {
				t.Fatalf("bad counts %+v for %q", tr, got)
			}
		})
	}
}

func TestTruncateTail(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		lines   int
		bytes   int
		want    string
		by      string
		partial bool
	}{
		{"fits", "a\nb\n", 5, 100, "a\nb\n", "", false},
		{"by lines", "a\nb\nc\nd", 2, 100, "c\nd", "lines", false},
		{"by lines, trailing newline", "a\nb\nc\n", 2, 100, "b\nc\n", "lines", false},
		{"by bytes", "aaaa\nbbbb\ncccc\n", 100, 9, "cccc\n", "bytes", false},
		{"last line too long", "a\n0123456789", 100, 4, "6789", "bytes", true},
		{"cut at rune start", "a\nxééé", 100, 5, "éé", "bytes", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, tr := TruncateTail(tc.in, tc.lines, tc.bytes)
			if got != tc.want || tr.TruncatedBy != tc.by || tr.LastLinePartial != tc.partial {
				t.Fatalf("TruncateTail(%q) = %q, %+v; want %q by %q partial=%v", tc.in, got, tr, tc.want, tc.by, tc.partial)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int]string{0: "0B", 1023: "1023B", 51200: "50.0KB", 3 << 20: "3.0MB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// checkTruncation holds for every input: the result is within the limits, is the right end of
// the input, keeps valid UTF-8 valid, and is cut exactly when the input is over a limit.
func checkTruncation(t *testing.T, in string, maxLines, maxBytes int) {
	over := countLines(in) > maxLines || len(in) > maxBytes
	head, tr := TruncateHead(in, maxLines, maxBytes)
	if !strings.HasPrefix(in, head) || len(head) > maxBytes || countLines(head) > maxLines || tr.Truncated != over {
		t.Fatalf("TruncateHead(%q, %d, %d) = %q, %+v", in, maxLines, maxBytes, head, tr)
	}
	if over && len(head) > 0 && len(head) < len(in) && in[len(head)] != '\n' {
		t.Fatalf("TruncateHead(%q) cut inside a line: %q", in, head)
	}
	tail, tr := TruncateTail(in, maxLines, maxBytes)
	if !strings.HasSuffix(in, tail) || len(tail) > maxBytes || countLines(tail) > maxLines || tr.Truncated != over {
		t.Fatalf("TruncateTail(%q, %d, %d) = %q, %+v", in, maxLines, maxBytes, tail, tr)
	}
	if utf8.ValidString(in) && !utf8.ValidString(tail) {
		t.Fatalf("TruncateTail(%q) broke UTF-8: %q", in, tail)
	}
	start := len(in) - len(tail)
	if over && !tr.LastLinePartial && start > 0 && in[start-1] != '\n' {
		t.Fatalf("TruncateTail(%q) started inside a line: %q", in, tail)
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("a\nb\nc\n", 2, 3)
	f.Add("héllo wörld\n\n\nend", 1, 5)
	f.Add("", 1, 1)
	f.Add("\n\n\n", 2, 1)
	f.Fuzz(func(t *testing.T, in string, maxLines, maxBytes int) {
		if maxLines < 1 || maxBytes < 4 || maxLines > 1<<20 || maxBytes > 1<<20 {
			t.Skip()
		}
		checkTruncation(t, in, maxLines, maxBytes)
	})
}
