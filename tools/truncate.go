package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Every tool result is held to these limits, whichever is hit first, so one call cannot fill a
// small model's context window.
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 * 1024
	// GrepMaxLineLength cuts single grep lines (minified files would otherwise eat the budget).
	GrepMaxLineLength = 500
)

// Truncation describes what a truncate function kept. It goes into Details as pi writes it.
type Truncation struct {
	Truncated   bool   `json:"truncated"`
	TruncatedBy string `json:"truncatedBy,omitempty"` // "lines" or "bytes"
	TotalLines  int    `json:"totalLines"`
	TotalBytes  int    `json:"totalBytes"`
	OutputLines int    `json:"outputLines"`
	OutputBytes int    `json:"outputBytes"`
	// LastLinePartial: a tail cut kept only the end of one line longer than the byte limit.
	LastLinePartial bool `json:"lastLinePartial,omitempty"`
	// FirstLineExceedsLimit: a head cut kept nothing because the first line alone is too long.
	FirstLineExceedsLimit bool `json:"firstLineExceedsLimit,omitempty"`
	MaxLines              int  `json:"maxLines"`
	MaxBytes              int  `json:"maxBytes"`
}

// countLines counts lines as an editor shows them: a final newline ends a line, it does not
// start an empty one.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// TruncateHead keeps the start of s: whole lines only, at most maxLines lines and maxBytes
// bytes. A cut result is a prefix of s without the newline of its last line.
func TruncateHead(s string, maxLines, maxBytes int) (string, Truncation) {
	t := Truncation{TotalLines: countLines(s), TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if t.TotalLines <= maxLines && len(s) <= maxBytes {
		t.OutputLines, t.OutputBytes = t.TotalLines, len(s)
		return s, t
	}
	t.Truncated = true
	pos, end, lines := 0, 0, 0 // s[:end] holds `lines` whole lines; pos starts the next one
	for lines < maxLines && pos < len(s) {
		next := len(s)
		if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
			next = pos + i
		}
		if next > maxBytes {
			t.TruncatedBy = "bytes"
			break
		}
		end, lines, pos = next, lines+1, next+1
	}
	if t.TruncatedBy == "" {
		t.TruncatedBy = "bytes" // every line fits but the final newline does not
		if lines == maxLines && pos < len(s) {
			t.TruncatedBy = "lines"
		}
	}
	t.FirstLineExceedsLimit = lines == 0 && t.TruncatedBy == "bytes"
	t.OutputLines, t.OutputBytes = lines, end
	return s[:end], t
}

// TruncateTail keeps the end of s: at most maxLines lines and maxBytes bytes, starting at a line
// start, except that when the last line alone is too long its end is kept, cut at a character
// boundary. Command output ends with what matters (the error, the summary), hence the tail.
func TruncateTail(s string, maxLines, maxBytes int) (string, Truncation) {
	t := Truncation{TotalLines: countLines(s), TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if t.TotalLines <= maxLines && len(s) <= maxBytes {
		t.OutputLines, t.OutputBytes = t.TotalLines, len(s)
		return s, t
	}
	t.Truncated = true
	body := strings.TrimSuffix(s, "\n") // a final newline ends the last line
	start, lines := len(s), 0           // s[start:] holds `lines` lines
	for lines < maxLines && start > 0 {
		end := start - 1 // the newline before s[start:]
		if start == len(s) {
			end = len(body)
		}
		prev := strings.LastIndexByte(body[:end], '\n') + 1
		if len(s)-prev > maxBytes {
			t.TruncatedBy = "bytes"
			break
		}
		start, lines = prev, lines+1
	}
	if t.TruncatedBy == "" {
		t.TruncatedBy = "lines"
	}
	if lines == 0 { // the last line alone is over the byte limit: keep its end
		cut := len(s) - maxBytes
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		t.LastLinePartial = true
		t.OutputLines, t.OutputBytes = 1, len(s)-cut
		return s[cut:], t
	}
	t.OutputLines, t.OutputBytes = lines, len(s)-start
	return s[start:], t
}

// FormatSize renders a byte count the way the notices do (512B, 50.0KB, 1.2MB).
func FormatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
}
