package images

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"pi/internal/safefile"
)

// MaxFile bounds an image file pi reads whole: a 6000×4000 screenshot is a few tens of MB at
// worst.
const MaxFile = 64 << 20

// Load reads the image file at path and fits it to lim.
func Load(path string, lim Limits) (Fitted, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return Fitted{}, fmt.Errorf("image %s: %w", path, err)
	case fi.IsDir():
		return Fitted{}, fmt.Errorf("image %s is a folder", path)
	case fi.Size() > MaxFile:
		return Fitted{}, fmt.Errorf("image %s has %d bytes, over the %d pi reads", path, fi.Size(), MaxFile)
	}
	data, err := safefile.ReadFile(context.Background(), path, MaxFile)
	if err != nil {
		return Fitted{}, fmt.Errorf("image %s: %w", path, err)
	}
	f, err := Fit(data, lim)
	if err != nil {
		return Fitted{}, fmt.Errorf("image %s: %w", path, err)
	}
	return f, nil
}

// imageExts are the file name endings PathOf takes for pictures.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// HasImageName reports whether a file name ends like a picture's.
func HasImageName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range imageExts {
		if ext == e {
			return true
		}
	}
	return false
}

// PastedPath recognises a pasted or dropped file path of a picture: one line, optionally
// quoted ('…' or "…") or with backslash-escaped spaces, or a file:// URL, as terminals and
// file managers send them. It returns the path and whether the text is one.
func PastedPath(text string) (string, bool) {
	s := strings.TrimSpace(text)
	if s == "" || strings.ContainsAny(s, "\n\r") {
		return "", false
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	} else {
		s = strings.ReplaceAll(s, `\ `, " ")
	}
	if after, ok := strings.CutPrefix(s, "file://"); ok {
		if u, err := url.PathUnescape(after); err == nil {
			s = u
		}
	}
	if !HasImageName(s) || !(filepath.IsAbs(s) || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "./")) {
		return "", false
	}
	return s, true
}
