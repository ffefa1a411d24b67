package tools

// attach.go turns @file arguments into a first message, as pi does:
// a text file is inlined as <file name="/abs/path">…</file>, an image is attached as an image
// block with such a note. The @words typed in a prompt attach the same way (AttachTyped).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"pi/images"
	"pi/internal/atfile"
	"pi/internal/safefile"
	"pi/provider"
)

// MaxAttachment bounds one text @file: the model's window is the real limit, and a text of
// many megabytes is almost always a mistake. Images may be larger (images.MaxFile): they are
// scaled down.
const MaxAttachment = 4 << 20

// Attachments reads @file arguments (paths relative to cwd) into a text to put in front
// of the first prompt and the image blocks to send with it. Images are fitted to the
// model's limits as read does, and the note says what was done. The first file that cannot
// be attached is the error.
func Attachments(paths []string, cwd string) (string, []provider.Block, error) {
	var text strings.Builder
	var blocks []provider.Block
	for _, p := range paths {
		a, err := attach(context.Background(), p, cwd)
		if err != nil {
			return "", nil, err
		}
		text.WriteString(a.text)
		if a.image != nil {
			blocks = append(blocks, *a.image)
		}
	}
	return text.String(), blocks, nil
}

// attachment is one @file read: its text for the prompt and, for a picture, its block.
type attachment struct {
	abs, text string
	image     *provider.Block
	size      int // the file's bytes
}

// attach reads the @file p (relative to cwd). Its errors start with @p and say why, the same
// on the command line as for a typed @word.
func attach(ctx context.Context, p, cwd string) (attachment, error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, p)
	}
	abs = resolveSpelling(filepath.Clean(abs))
	data, err := readAttachment(ctx, abs)
	if err != nil {
		return attachment{}, fmt.Errorf("@%s: %w", p, err)
	}
	a := attachment{abs: abs, size: len(data)}
	if images.MIME(data) != "" {
		f, err := images.Fit(data, images.DefaultLimits)
		if err != nil {
			return attachment{}, fmt.Errorf("@%s: %w", p, err)
		}
		a.image, a.text = &f.Block, atfile.Note(abs, f.Note)
		return a, nil
	}
	switch mime := http.DetectContentType(data); {
	case len(data) > MaxAttachment:
		return attachment{}, fmt.Errorf("@%s has %d bytes; an @file may have up to %d (the read tool can page through bigger ones)",
			p, len(data), MaxAttachment)
	case utf8.Valid(data) && !bytes.ContainsRune(data, 0):
		a.text = atfile.Text(abs, string(data))
		return a, nil
	default:
		return attachment{}, fmt.Errorf("@%s: neither text nor an image (%s)", p, mime)
	}
}

// readAttachment reads an @file, as large as an image may be; a text is held to
// MaxAttachment by the caller.
func readAttachment(ctx context.Context, path string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, notFoundError(path)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder; name the files in it", path)
	case fi.Size() > images.MaxFile:
		return nil, fmt.Errorf("%s has %d bytes; an @file may have up to %d (the read tool can page through bigger ones)",
			path, fi.Size(), MaxAttachment)
	}
	return safefile.ReadFile(ctx, path, images.MaxFile)
}

// notFoundError says an @file names nothing; it is an fs.ErrNotExist.
type notFoundError string

func (e notFoundError) Error() string        { return "no such file: " + string(e) }
func (e notFoundError) Is(target error) bool { return target == fs.ErrNotExist }

// Typed is what AttachTyped did with a prompt's @words.
type Typed struct {
	// Text is the prompt to send: the attached files' blocks, then the text as typed.
	Text     string
	Images   []provider.Block
	Attached []Attached
	// Problems say why an @word was left as typed, one each. An @word that names nothing and
	// does not look like a path (no dot, no slash: @alice, @property) is left without one.
	Problems []error
}

// Attached is one file an @word attached.
type Attached struct {
	Word, Path string // the path as typed, and the file read
	Bytes      int
}

// AttachTyped attaches the files a prompt's @words name (relative to cwd), as the command
// line attaches its @file arguments: the same blocks in front of the text, the same limits and
// the same reasons when a file cannot go. An @word with a picture's name is attached only
// when withImages is set (the terminal UI's editor attaches those itself). A file named twice
// is attached once. Nothing of the typed text is lost: a word whose file
// cannot be attached stays as typed, and so does every attached one.
func AttachTyped(ctx context.Context, text, cwd string, withImages bool) Typed {
	out := Typed{Text: text}
	var blocks strings.Builder
	seen := map[string]bool{}
	for _, w := range atfile.Words(text) {
		if !withImages && images.HasImageName(w.Path) {
			continue
		}
		a, err := attach(ctx, w.Path, cwd)
		switch {
		case err != nil && (strings.ContainsAny(w.Path, "./") || !errors.Is(err, fs.ErrNotExist)):
			out.Problems = append(out.Problems, fmt.Errorf("%w; sent as typed", err))
		case err != nil || seen[a.abs]:
		default:
			seen[a.abs] = true
			blocks.WriteString(a.text)
			if a.image != nil {
				out.Images = append(out.Images, *a.image)
			}
			out.Attached = append(out.Attached, Attached{Word: w.Path, Path: a.abs, Bytes: a.size})
		}
	}
	out.Text = blocks.String() + text
	return out
}
