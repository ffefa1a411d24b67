package tools

// attach.go turns @file arguments into a first message, as pi does:
// a text file is inlined as <file name="/abs/path">…</file>, an image is attached as an image
// block with such a note.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"pi/images"
	"pi/internal/safefile"
	"pi/provider"
)

// MaxAttachment bounds one text @file: the model's window is the real limit, and a text of
// many megabytes is almost always a mistake. Images may be larger (images.MaxFile): they are
// scaled down.
const MaxAttachment = 4 << 20

// Attachments reads @file arguments (paths relative to cwd) into a text to put in front
// of the first prompt and the image blocks to send with it. Images are fitted to the
// model's limits as read does, and the note says what was done.
func Attachments(paths []string, cwd string) (string, []provider.Block, error) {
	var text strings.Builder
	var blocks []provider.Block
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, p)
		}
		abs = resolveSpelling(filepath.Clean(abs))
		data, err := readAttachment(abs)
		if err != nil {
			return "", nil, fmt.Errorf("@%s: %w", p, err)
		}
		if images.MIME(data) != "" {
			f, err := images.Fit(data, images.DefaultLimits)
			if err != nil {
				return "", nil, fmt.Errorf("@%s: %w", p, err)
			}
			blocks = append(blocks, f.Block)
			fmt.Fprintf(&text, "<file name=%q>%s</file>\n", abs, f.Note)
			continue
		}
		switch mime := http.DetectContentType(data); {
		case len(data) > MaxAttachment:
			return "", nil, fmt.Errorf("@%s has %d bytes; an @file may have up to %d (the read tool can page through bigger ones)",
				p, len(data), MaxAttachment)
		case utf8.Valid(data) && !bytes.ContainsRune(data, 0):
			fmt.Fprintf(&text, "<file name=%q>\n%s\n</file>\n", abs, strings.TrimSuffix(string(data), "\n"))
		default:
			return "", nil, fmt.Errorf("@%s: neither text nor an image (%s)", p, mime)
		}
	}
	return text.String(), blocks, nil
}

// readAttachment reads an @file, as large as an image may be; a text is held to
// MaxAttachment by the caller.
func readAttachment(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder; name the files in it", path)
	case fi.Size() > images.MaxFile:
		return nil, fmt.Errorf("%s has %d bytes; an @file may have up to %d (the read tool can page through bigger ones)",
			path, fi.Size(), MaxAttachment)
	}
	return safefile.ReadFile(context.Background(), path, images.MaxFile)
}
