package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"pi/internal/safefile"
)

// maxReadFileSize stops read from loading huge files whole; bash with sed or head can still
// show parts of them. A file that reports no size (/proc, /sys) is read to at most
// maxUnsizedFileSize: the bound is on the bytes read, and some of them never end.
const (
	maxReadFileSize    = 256 << 20
	maxUnsizedFileSize = 16 << 20
)

// ReadDetails is the details of a read result.
type ReadDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
}

func newRead(env *Env) Tool {
	return &Func{Spec: Info{
		Name: "read", ReadOnly: true,
		// Long output is cut to a size that depends on the model's window (LimitsFor), so the
		// description names no figures.
		Description: "Read a text file or an image (png, jpeg, gif, webp). Long files are cut with a notice; page with offset and limit.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string"},` +
			`"offset":{"type":"integer","minimum":1,"description":"First line, from 1"},` +
			`"limit":{"type":"integer","minimum":1,"description":"Most lines"}},` +
			`"required":["path"]}`),
		Guidelines: []string{"Read a file before you edit it."},
	}, Run: func(ctx context.Context, _ string, args map[string]any, _ func(Result)) (Result, error) {
		return runRead(ctx, env, args)
	}}
}

func runRead(ctx context.Context, env *Env, args map[string]any) (Result, error) {
	name, path, err := argPath(env, args, "path", true)
	if err != nil {
		return Result{}, err
	}
	offset, _, err := argInt(args, "offset")
	if err != nil {
		return Result{}, err
	}
	limit, hasLimit, err := argInt(args, "limit")
	if err != nil {
		return Result{}, err
	}
	data, err := readWhole(ctx, path, name, "read", "show parts with bash (sed -n, head, tail)")
	if err != nil {
		return Result{}, err
	}
	env.remember(lockKey(path), data)
	if mime := imageMIME(data); mime != "" {
		return readImage(env, name, mime, data), nil
	}
	if isBinary(data) {
		return TextResult(fmt.Sprintf("%s is a binary file (%s); its bytes are not shown.",
			name, FormatSize(len(data)))), nil
	}
	if !hasLimit {
		limit = -1
	}
	return readText(name, data, offset, limit, env.Limits())
}

// readWhole reads the regular file at path for the tool verb, refusing a directory, a pipe,
// a device, and a file over maxReadFileSize (then saying what to do instead: instead).
func readWhole(ctx context.Context, path, name, verb, instead string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot %s %s: %w", verb, name, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory; list it with ls or bash", name)
	case fi.Size() > maxReadFileSize:
		return nil, fmt.Errorf("%s is %s, too large to %s whole; %s", name, FormatSize(int(fi.Size())), verb, instead)
	}
	limit := int64(maxReadFileSize)
	if fi.Size() == 0 {
		limit = maxUnsizedFileSize
	}
	data, err := safefile.ReadFile(ctx, path, limit)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("cannot %s %s: %w; %s", verb, name, err, instead)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot %s %s: %w", verb, name, err)
	}
	return data, nil
}

// readText shows lines [offset, offset+limit) of a text file within the output limits, with a
// notice that says how to go on. It copies no more of the file than it can show.
func readText(name string, data []byte, offset, limit int, l Limits) (Result, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	total := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		total++
	}
	start := max(offset, 1) - 1
	if total == 0 && start == 0 {
		return TextResult("(empty file)"), nil
	}
	if start >= total {
		return Result{}, fmt.Errorf("offset %d is past the end of %s, which has %d lines", offset, name, total)
	}
	end := total
	if limit >= 0 && start+limit < total {
		end = start + limit
	}
	from := lineStart(data, start)
	to := len(data)
	if end < total {
		to = lineStart(data, end) - 1
	}
	selected := bytes.TrimSuffix(data[from:to], []byte{'\n'})
	// Only the first MaxBytes+1 bytes can reach the output; a line cut there is dropped by
	// TruncateHead like any line that does not fit.
	head := selected[:min(len(selected), l.MaxBytes+1)]
	out, tr := TruncateHead(strings.ToValidUTF8(string(head), "\uFFFD"), l.MaxLines, l.MaxBytes)
	tr.TotalLines, tr.TotalBytes = end-start, len(selected)
	first := start + 1
	switch {
	case tr.FirstLineExceedsLimit:
		out = fmt.Sprintf("[Line %d alone is %s, over the %s limit. Read part of it with bash: sed -n '%dp' %s | head -c %d]",
			first, FormatSize(lineLen(data, from)), FormatSize(l.MaxBytes), first, name, l.MaxBytes)
	case tr.Truncated:
		last := start + tr.OutputLines
		why := ""
		if tr.TruncatedBy == "bytes" {
			why = " (" + FormatSize(l.MaxBytes) + " limit)"
		}
		out += fmt.Sprintf("\n\n[Lines %d-%d of %d shown%s. Continue with offset=%d.]", first, last, total, why, last+1)
	case end < total:
		out += fmt.Sprintf("\n\n[%d more lines. Continue with offset=%d.]", total-end, end+1)
	}
	res := TextResult(out)
	if tr.Truncated {
		res.Details = ReadDetails{Truncation: &tr}
	}
	return res, nil
}

// lineStart is the byte offset of line n (from 0) of data, which has more than n lines.
func lineStart(data []byte, n int) int {
	pos := 0
	for ; n > 0; n-- {
		pos += bytes.IndexByte(data[pos:], '\n') + 1
	}
	return pos
}

// lineLen is the length of the line starting at pos, without its newline.
func lineLen(data []byte, pos int) int {
	if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
		return i
	}
	return len(data) - pos
}

// isBinary applies git's rule: a NUL byte in the first 8 KiB.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0
}
