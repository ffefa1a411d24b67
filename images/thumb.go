package images

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"pi/provider"
)

// Describe reads an image block's size from its header, without decoding the picture.
func Describe(b provider.Block) (w, h int, ok bool) {
	// A header is in the first few kilobytes (a JPEG's frame header follows its metadata).
	head := b.Data[:min(len(b.Data), 256<<10)]
	head = head[:len(head)/4*4]
	data, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, strings.NewReader(head)))
	if err != nil && len(data) == 0 {
		return 0, 0, false
	}
	mime := MIME(data)
	if mime == "" {
		return 0, 0, false
	}
	cfg, _, err := decodeConfig(data, mime)
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// Placeholder is the one line that stands for an image block where it is not drawn:
// "[image 1280×720 image/png]".
func Placeholder(b provider.Block) string {
	if w, h, ok := Describe(b); ok {
		return fmt.Sprintf("[image %d×%d %s]", w, h, b.MimeType)
	}
	return "[image " + b.MimeType + "]"
}

// Thumbnail is an image block scaled to fit maxW×maxH pixels, as PNG, for a terminal to draw.
func Thumbnail(b provider.Block, maxW, maxH int) ([]byte, int, int, error) {
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("the image's base64 data: %w", err)
	}
	mime := MIME(data)
	if mime == "" {
		return nil, 0, 0, ErrNotImage
	}
	cfg, _, err := decodeConfig(data, mime)
	if err != nil || cfg.Width*cfg.Height > maxPixels || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, 0, 0, fmt.Errorf("reading the %s header: %v", mime, err)
	}
	img, err := decode(data, mime)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("decoding the %s image: %w", mime, err)
	}
	w, h := scaleInto(cfg.Width, cfg.Height, maxW, maxH)
	out, err := encodePNG(scale(img, w, h))
	return out, w, h, err
}
