// Package images makes pictures fit to send to a model: it decodes PNG, JPEG, GIF and WebP,
// scales what is too big to fit 2000×2000 and a provider's byte limit (keeping the aspect
// ratio), encodes the result as PNG or JPEG, and says in one line what it did. Every way an
// image enters pi (the read tool, @file, a paste in the terminal UI, an RPC prompt) goes through
// Fit, so a session file holds the image as the model saw it. It also reads the clipboard and
// recognises image paths.
//
// It imports only provider (for the image block) and golang.org/x/image (scaling, WebP); it
// knows nothing of sessions, tools or the terminal.
package images

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"pi/provider"
)

// Limits bound an image sent to a model.
type Limits struct {
	MaxWidth, MaxHeight int
	// MaxBase64 is the largest base64 text of one image the provider takes.
	MaxBase64 int
}

// DefaultLimits are pi's: 2000×2000, and 4.5 MB of base64 (Anthropic takes 5 MB per image;
// the local servers take what they are given, but a bigger image costs far more than it shows).
var DefaultLimits = Limits{MaxWidth: 2000, MaxHeight: 2000, MaxBase64: 4_500_000}

// maxPixels refuses to decode an image bigger than this (about 400 MB of pixels): a small file
// can claim to be huge.
const maxPixels = 100_000_000

// minSide is the smallest side Fit scales down to when looking for a size within the byte
// limit; smaller than that an image shows nothing worth its tokens.
const minSide = 64

// Fitted is an image ready to send.
type Fitted struct {
	Block         provider.Block // the image block: base64 data and its MIME type
	Width, Height int            // what is sent
	OrigWidth     int
	OrigHeight    int
	// Note says what was done ("" when the image went as it was), for the model and the user.
	Note string
}

// Resized reports whether the image was scaled or re-encoded.
func (f *Fitted) Resized() bool { return f.Note != "" }

// Size is "1280×720", the size sent.
func (f *Fitted) Size() string { return fmt.Sprintf("%d×%d", f.Width, f.Height) }

// ErrNotImage is returned for data that is none of the formats Fit reads.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// Fit returns data (an encoded image) as an image block within lim: as it is when it already
// fits, else scaled to fit the size limits, then encoded as PNG (for a PNG or GIF source, or
// one with transparency) or JPEG, whichever fits, and scaled further while neither does.
func Fit(data []byte, lim Limits) (Fitted, error) {
	mime := MIME(data)
	if mime == "" {
		return Fitted{}, ErrNotImage
	}
	cfg, _, err := decodeConfig(data, mime)
	if err != nil {
		return Fitted{}, fmt.Errorf("reading the %s header: %w", mime, err)
	}
	f := Fitted{Width: cfg.Width, Height: cfg.Height, OrigWidth: cfg.Width, OrigHeight: cfg.Height}
	if cfg.Width <= lim.MaxWidth && cfg.Height <= lim.MaxHeight && base64.StdEncoding.EncodedLen(len(data)) <= lim.MaxBase64 {
		f.Block = provider.Image(base64.StdEncoding.EncodeToString(data), mime)
		return f, nil
	}
	if cfg.Width*cfg.Height > maxPixels || cfg.Width <= 0 || cfg.Height <= 0 {
		return Fitted{}, fmt.Errorf("a %d×%d image is too large to decode", cfg.Width, cfg.Height)
	}
	img, err := decode(data, mime)
	if err != nil {
		return Fitted{}, fmt.Errorf("decoding the %s image: %w", mime, err)
	}
	return fitDecoded(img, mime, f, lim)
}

// fitDecoded scales img until one of its encodings fits lim.
func fitDecoded(img image.Image, mime string, f Fitted, lim Limits) (Fitted, error) {
	w, h := scaleInto(f.OrigWidth, f.OrigHeight, lim.MaxWidth, lim.MaxHeight)
	lossless := mime == "image/png" || mime == "image/gif" || !opaque(img)
	for {
		scaled := scale(img, w, h)
		for _, enc := range encodings(lossless) {
			data, err := enc.encode(scaled)
			if err != nil {
				return Fitted{}, fmt.Errorf("encoding %s: %w", enc.name, err)
			}
			if base64.StdEncoding.EncodedLen(len(data)) <= lim.MaxBase64 {
				f.Block = provider.Image(base64.StdEncoding.EncodeToString(data), enc.mime)
				f.Width, f.Height = w, h
				f.Note = fmt.Sprintf("[image resized from %d×%d to %d×%d, sent as %s (%s) to fit %d×%d and the %s limit]",
					f.OrigWidth, f.OrigHeight, w, h, enc.name, humanBytes(len(data)),
					lim.MaxWidth, lim.MaxHeight, humanBytes(lim.MaxBase64))
				return f, nil
			}
		}
		if w <= minSide || h <= minSide {
			return Fitted{}, fmt.Errorf("a %d×%d image cannot be made to fit the %s limit", f.OrigWidth, f.OrigHeight, humanBytes(lim.MaxBase64))
		}
		w, h = max(w*3/4, 1), max(h*3/4, 1)
	}
}

// scaleInto is the largest w×h within maxW×maxH with the aspect ratio of ow×oh, never larger
// than ow×oh.
func scaleInto(ow, oh, maxW, maxH int) (int, int) {
	if ow <= maxW && oh <= maxH {
		return ow, oh
	}
	// Compare ow/maxW with oh/maxH without floating point.
	if ow*maxH >= oh*maxW {
		return maxW, max(1, (oh*maxW+ow/2)/ow)
	}
	return max(1, (ow*maxH+oh/2)/oh), maxH
}

// scale draws img at w×h. A reduction by two or more first averages k×k blocks (fast, and
// the right filter for shrinking); CatmullRom then does the rest, keeping text in screenshots
// legible.
func scale(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if k := min(b.Dx()/w, b.Dy()/h); k >= 2 {
		img = shrink(img, k)
		b = img.Bounds()
	}
	if b.Dx() == w && b.Dy() == h {
		return img
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// shrink averages the k×k blocks of img (premultiplied RGBA, so transparent pixels do not
// darken their neighbours), dropping the last partial rows and columns.
func shrink(img image.Image, k int) *image.RGBA {
	b := img.Bounds()
	src, ok := img.(*image.RGBA)
	if !ok {
		src = image.NewRGBA(b)
		draw.Draw(src, b, img, b.Min, draw.Src)
	}
	w, h := b.Dx()/k, b.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sums := make([]uint32, w*4)
	n := uint32(k * k)
	for y := 0; y < h; y++ {
		clear(sums)
		for dy := 0; dy < k; dy++ {
			row := src.Pix[(y*k+dy)*src.Stride:]
			for x := 0; x < w; x++ {
				s := sums[x*4 : x*4+4 : x*4+4]
				for o := x * k * 4; o < (x+1)*k*4; o += 4 {
					s[0] += uint32(row[o])
					s[1] += uint32(row[o+1])
					s[2] += uint32(row[o+2])
					s[3] += uint32(row[o+3])
				}
			}
		}
		out := dst.Pix[y*dst.Stride:]
		for i, v := range sums {
			out[i] = uint8((v + n/2) / n)
		}
	}
	return dst
}

type encoding struct {
	name, mime string
	encode     func(image.Image) ([]byte, error)
}

// encodings are the ways to write an image, best first: PNG for pictures that must stay exact
// (screenshots arrive as PNG), then JPEG at falling quality.
func encodings(lossless bool) []encoding {
	var out []encoding
	if lossless {
		out = append(out, encoding{"PNG", "image/png", encodePNG})
	}
	for _, q := range []int{85, 70, 55} {
		out = append(out, encoding{fmt.Sprintf("JPEG q%d", q), "image/jpeg", func(img image.Image) ([]byte, error) {
			return encodeJPEG(img, q)
		}})
	}
	return out
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	return buf.Bytes(), err
}

// encodeJPEG writes img as JPEG over white (JPEG has no transparency).
func encodeJPEG(img image.Image, quality int) ([]byte, error) {
	if !opaque(img) {
		flat := image.NewRGBA(img.Bounds())
		draw.Draw(flat, flat.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		draw.Draw(flat, flat.Bounds(), img, img.Bounds().Min, draw.Over)
		img = flat
	}
	var buf bytes.Buffer
	err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality})
	return buf.Bytes(), err
}

// opaque reports whether every pixel of img is opaque.
func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

func decodeConfig(data []byte, mime string) (image.Config, string, error) {
	r := bytes.NewReader(data)
	switch mime {
	case "image/png":
		c, err := png.DecodeConfig(r)
		return c, "png", err
	case "image/jpeg":
		c, err := jpeg.DecodeConfig(r)
		return c, "jpeg", err
	case "image/gif":
		c, err := gif.DecodeConfig(r)
		return c, "gif", err
	}
	c, err := webp.DecodeConfig(r)
	return c, "webp", err
}

func decode(data []byte, mime string) (image.Image, error) {
	r := bytes.NewReader(data)
	switch mime {
	case "image/png":
		return png.Decode(r)
	case "image/jpeg":
		return jpeg.Decode(r)
	case "image/gif":
		return gif.Decode(r) // the first frame
	}
	return webp.Decode(r)
}

// MIME recognises the image formats models take by their first bytes, not by a file name,
// which may lie; "" for anything else.
func MIME(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

func humanBytes(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%d KB", n/1000)
	}
	return fmt.Sprintf("%d B", n)
}
