// Package atfile is the text an @file puts in a prompt, as pi writes it: a text file as a
// block <file name="/abs/path">\n…\n</file> on lines of its own, a picture as a one-line
// <file name="/abs/path">note</file> beside its image block. It writes those blocks and finds
// them again, so that what shows a prompt (the terminal UI, the tree, session titles, the
// export) can name a file and its size instead of printing its whole body; the message itself
// keeps the full text. It reads no files and imports nothing of this module.
package atfile

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	openTag  = "<file name="
	closeTag = "</file>"
)

// Text is a text file's block, as pi inlines it: the body without its last newline.
func Text(abs, body string) string {
	return fmt.Sprintf("<file name=%q>\n%s\n</file>\n", abs, strings.TrimSuffix(body, "\n"))
}

// Note is the line that goes with an attached picture, saying what was done to it.
func Note(abs, note string) string { return fmt.Sprintf("<file name=%q>%s</file>\n", abs, note) }

// File is one block found in a prompt.
type File struct {
	Path string // as the block names it (absolute, as pi writes it)
	Body string // the file's text, or a picture's note
	// Note says the block is a picture's one-line note, not a file's text.
	Note bool
	// Cut says the block has no closing tag: the text was cut short (a title, a preview).
	Cut bool
}

// Name is the file's name without its folders.
func (f File) Name() string { return filepath.Base(f.Path) }

// Size is the body's size, as people read it: 512 B, 2.1 KB, 1.3 MB.
func (f File) Size() string {
	n := len(f.Body)
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// Label is the file in place of its body: [main.go, 2.1 KB] ([shot.png] for a picture's note,
// [main.go, cut] when the text ends inside the block).
func (f File) Label() string {
	switch {
	case f.Note:
		return "[" + f.Name() + "]"
	case f.Cut:
		return "[" + f.Name() + ", cut]"
	}
	return "[" + f.Name() + ", " + f.Size() + "]"
}

// Piece is a stretch of a prompt: typed text, or a file's block.
type Piece struct {
	Text string // typed text (File is nil), or the block as written
	File *File
}

// Split cuts text into typed stretches and file blocks, in order. A block starts a line with
// <file name="…"> and ends at the first line that is </file>; pasted text that merely looks
// like one is found too, which only changes how it is shown.
func Split(text string) []Piece {
	var out []Piece
	typed := 0
	for at := 0; at < len(text); {
		if at == 0 || text[at-1] == '\n' {
			if f, n, ok := parseBlock(text[at:]); ok {
				if at > typed {
					out = append(out, Piece{Text: text[typed:at]})
				}
				out = append(out, Piece{Text: text[at : at+n], File: &f})
				at += n
				typed = at
				continue
			}
		}
		nl := strings.IndexByte(text[at:], '\n')
		if nl < 0 {
			break
		}
		at += nl + 1
	}
	if typed < len(text) {
		out = append(out, Piece{Text: text[typed:]})
	}
	return out
}

// parseBlock reads a block at the start of s: the file and the bytes it takes (with the
// newline after </file>).
func parseBlock(s string) (File, int, bool) {
	if !strings.HasPrefix(s, openTag) {
		return File{}, 0, false
	}
	path, rest, ok := quotedName(s[len(openTag):])
	if !ok || !strings.HasPrefix(rest, ">") {
		return File{}, 0, false
	}
	rest = rest[1:]
	head := len(s) - len(rest)
	f := File{Path: path}
	if body, ok := strings.CutPrefix(rest, "\n"); ok {
		end := closingLine(body)
		if end < 0 {
			f.Body, f.Cut = body, true
			return f, len(s), true
		}
		f.Body = strings.TrimSuffix(body[:end], "\n")
		n := head + 1 + end + len(closeTag)
		return f, n + newlineAt(s, n), true
	}
	line, _, _ := strings.Cut(rest, "\n")
	note, ok := strings.CutSuffix(line, closeTag)
	if !ok {
		return File{}, 0, false
	}
	f.Body, f.Note = note, true
	n := head + len(line)
	return f, n + newlineAt(s, n), true
}

// quotedName reads "name" as written by %q, or raw up to the next quote (pi writes the path
// unescaped).
func quotedName(s string) (name, rest string, ok bool) {
	if q, err := strconv.QuotedPrefix(s); err == nil {
		if name, err := strconv.Unquote(q); err == nil {
			return name, s[len(q):], true
		}
	}
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	end := strings.Index(s[1:], `">`)
	if end < 0 {
		return "", "", false
	}
	return s[1 : 1+end], s[1+end+1:], true
}

// closingLine is where the line </file> starts in body (the body's end may be that line
// itself when the file was empty), or -1.
func closingLine(body string) int {
	for at := 0; at <= len(body); {
		if strings.HasPrefix(body[at:], closeTag) {
			if after := body[at+len(closeTag):]; after == "" || after[0] == '\n' {
				return at
			}
		}
		nl := strings.IndexByte(body[at:], '\n')
		if nl < 0 {
			return -1
		}
		at += nl + 1
	}
	return -1
}

func newlineAt(s string, i int) int {
	if i < len(s) && s[i] == '\n' {
		return 1
	}
	return 0
}

// Fold is text with each file block in place of its label, on one line with the typed text
// after it: "[main.go, 2.1 KB] explain @main.go".
func Fold(text string) string {
	var b strings.Builder
	for _, p := range Split(text) {
		s := p.Text
		if p.File != nil {
			s = p.File.Label() + " "
		}
		b.WriteString(s)
	}
	return strings.TrimSpace(b.String())
}

// Files are the blocks of text.
func Files(text string) []File {
	var out []File
	for _, p := range Split(text) {
		if p.File != nil {
			out = append(out, *p.File)
		}
	}
	return out
}

// Typed is the text without its file blocks: what the user typed.
func Typed(text string) string {
	var b strings.Builder
	for _, p := range Split(text) {
		if p.File == nil {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Unexpand is text as the user typed it where that loses nothing: a block goes when an @word
// of the typed text names its file (sending the text again attaches the file again), and
// stays otherwise (an @file argument of the command line, whose text does not name it).
func Unexpand(text string) string {
	pieces := Split(text)
	var typed strings.Builder
	for _, p := range pieces {
		if p.File == nil {
			typed.WriteString(p.Text)
		}
	}
	words := Words(typed.String())
	var b strings.Builder
	for _, p := range pieces {
		if p.File == nil || !namedBy(p.File.Path, words) {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// namedBy reports whether one of the @words names the file at abs.
func namedBy(abs string, words []Word) bool {
	for _, w := range words {
		p := filepath.Clean(w.Path)
		if p == abs || strings.HasSuffix(abs, string(filepath.Separator)+strings.TrimPrefix(p, "./")) {
			return true
		}
	}
	return false
}

// Word is an @word of a prompt: where it stands in the text and the path it names.
type Word struct {
	Start, End int // byte offsets of the word, "@" included
	Path       string
}

// Words finds the @words of typed text: "@" starting a word (at a line's start or after a
// space), then a path, or a quoted path (@"my notes.txt") as completion writes one with
// spaces. Punctuation that ends a sentence or closes a bracket or quote is not part of the
// path. Lines inside ``` fences are skipped: a decorator in pasted code names no file.
func Words(text string) []Word {
	var out []Word
	fenced := false
	for lineStart := 0; lineStart < len(text); {
		end := strings.IndexByte(text[lineStart:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += lineStart
		}
		line := text[lineStart:end]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		} else if !fenced {
			out = append(out, lineWords(line, lineStart)...)
		}
		lineStart = end + 1
	}
	return out
}

// lineWords are the @words of one line; offset is where the line starts in the text.
func lineWords(line string, offset int) []Word {
	var out []Word
	for i := 0; i < len(line); i++ {
		if line[i] != '@' || i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
			continue
		}
		rest := line[i+1:]
		var path string
		var n int
		if strings.HasPrefix(rest, `"`) {
			q := strings.IndexByte(rest[1:], '"')
			if q < 0 {
				continue
			}
			path, n = rest[1:1+q], q+2
		} else {
			n = strings.IndexAny(rest, " \t")
			if n < 0 {
				n = len(rest)
			}
			path = strings.TrimRight(rest[:n], ".,;:!?)]}'\"`")
			n = len(path)
		}
		if path != "" {
			out = append(out, Word{Start: offset + i, End: offset + i + 1 + n, Path: path})
		}
		i += n
	}
	return out
}
