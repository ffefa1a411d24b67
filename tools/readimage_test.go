package tools

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pi/images"
	"pi/provider"
)

// tinyWebP is a 1×1 lossless WebP (Go encodes no WebP, so it is spelled out).
var tinyWebP = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// encodedImage is a w×h picture with detail in it, encoded as format (png, jpeg, gif).
func encodedImage(t testing.TB, format string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x*7), uint8(y*13), uint8((x^y)*3), 255
		}
	}
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, &gif.Options{NumColors: 16})
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// grayPNG is a w×h grey picture with detail: the cheapest large PNG to make.
func grayPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*7 + i/w*13)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The acceptance case: a 6000×4000 screenshot is read and sent as at most 2000×2000 within
// the byte limit, and the result says so.
func TestReadResizesALargeImage(t *testing.T) {
	env := testEnv(t)
	env.ImagesAllowed = func() bool { return true }
	big := grayPNG(t, 6000, 4000)
	if err := os.WriteFile(filepath.Join(env.Cwd, "shot.png"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	res := callTool(t, env, "read", map[string]any{"path": "shot.png"})
	var img *provider.Block
	for i := range res.Content {
		if res.Content[i].Type == provider.BlockImage {
			img = &res.Content[i]
		}
	}
	if img == nil || res.IsError {
		t.Fatalf("no image in %+v", resultText(res))
	}
	if len(img.Data) > images.DefaultLimits.MaxBase64 {
		t.Errorf("%d bytes of base64, over %d", len(img.Data), images.DefaultLimits.MaxBase64)
	}
	data, _ := base64.StdEncoding.DecodeString(img.Data)
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 2000 || cfg.Height != 1333 {
		t.Errorf("sent %d×%d (%v), want 2000×1333", cfg.Width, cfg.Height, err)
	}
	if text := resultText(res); !strings.Contains(text, "resized from 6000×4000 to 2000×1333") {
		t.Errorf("the result does not say what was done: %q", text)
	}
}
