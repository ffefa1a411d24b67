package images

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"pi/provider"
)

// testPNG draws a w×h picture with detail (so it does not compress to nothing): stripes and
// a gradient.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x*7), uint8(y*13), uint8((x^y)*3), 255
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodedSize(t *testing.T, b provider.Block) (int, int) {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the fitted image does not decode: %v", err)
	}
	return cfg.Width, cfg.Height
}

func TestFitScalesAndEncodesWithinLimits(t *testing.T) {
	// Limits of 500×500 exercise the same paths as 2000×2000 on pictures a sixteenth the size
	// (the 6000×4000 case is the read tool's test, and the benchmark's).
	small := Limits{MaxWidth: 500, MaxHeight: 500, MaxBase64: DefaultLimits.MaxBase64}
	cases := []struct {
		name          string
		data          []byte
		lim           Limits
		wantW, wantH  int
		wantMIME      string
		wantNote      string
		wantUntouched bool
	}{
		{"small image goes as it is", testPNG(t, 320, 200), DefaultLimits, 320, 200, "image/png", "", true},
		{"three times too big fits keeping the aspect", testPNG(t, 1500, 1000), small, 500, 333, "image/png", "1500×1000 to 500×333", false},
		{"a reduction that is no whole multiple", testPNG(t, 1300, 700), small, 500, 269, "image/png", "1300×700 to 500×269", false},
		{"tall image fits by height", testPNG(t, 250, 1500), small, 83, 500, "image/png", "250×1500 to 83×500", false},
		{"byte limit forces JPEG or a smaller size", testPNG(t, 400, 400), Limits{2000, 2000, 8_000}, 0, 0, "image/jpeg", "sent as JPEG", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Fit(c.data, c.lim)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Block.Data) > c.lim.MaxBase64 {
				t.Errorf("base64 is %d bytes, over the limit %d", len(f.Block.Data), c.lim.MaxBase64)
			}
			w, h := decodedSize(t, f.Block)
			if w != f.Width || h != f.Height {
				t.Errorf("says %s, decodes as %d×%d", f.Size(), w, h)
			}
			if w > c.lim.MaxWidth || h > c.lim.MaxHeight {
				t.Errorf("%d×%d exceeds %d×%d", w, h, c.lim.MaxWidth, c.lim.MaxHeight)
			}
			if c.wantW != 0 && (w != c.wantW || h != c.wantH) {
				t.Errorf("size %d×%d, want %d×%d", w, h, c.wantW, c.wantH)
			}
			if c.wantMIME != "" && f.Block.MimeType != c.wantMIME {
				t.Errorf("MIME %s, want %s", f.Block.MimeType, c.wantMIME)
			}
			if !strings.Contains(f.Note, c.wantNote) || (c.wantNote == "") != (f.Note == "") {
				t.Errorf("note %q, want it to say %q", f.Note, c.wantNote)
			}
			if c.wantUntouched && f.Block.Data != base64.StdEncoding.EncodeToString(c.data) {
				t.Error("an image within the limits was re-encoded")
			}
		})
	}
}

func TestFitRefusesWhatIsNoImage(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("hello"), []byte("\x89PNG\r\n\x1a\ngarbage")} {
		if _, err := Fit(data, DefaultLimits); err == nil {
			t.Errorf("Fit(%q) succeeded", data)
		}
	}
}

func TestFitKeepsAJPEGAsJPEG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3000, 100))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Fit(buf.Bytes(), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if f.Block.MimeType != "image/jpeg" || f.Width != 2000 || f.Height != 67 {
		t.Errorf("got %s %s", f.Block.MimeType, f.Size())
	}
}

func TestPrepareNotesInsteadOfImages(t *testing.T) {
	img := provider.Image(base64.StdEncoding.EncodeToString(testPNG(t, 40, 30)), "image/png")
	cases := []struct {
		name      string
		accepts   bool
		in        []provider.Block
		wantKept  int
		wantNotes string
	}{
		{"text-only model gets a note", false, []provider.Block{img}, 0, "[image omitted: llama3 does not take images]"},
		{"vision model gets the image", true, []provider.Block{img}, 1, ""},
		{"broken data is a note, not an error", true, []provider.Block{provider.Image("!!", "image/png")}, 0, "image 1 left out"},
		{"not an image at all", true, []provider.Block{provider.Image("aGVsbG8=", "image/png")}, 0, "not a PNG"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kept, notes := Prepare(c.in, c.accepts, "llama3", DefaultLimits)
			if len(kept) != c.wantKept || !strings.Contains(notes, c.wantNotes) || (c.wantNotes == "") != (notes == "") {
				t.Errorf("kept %d, notes %q; want %d, %q", len(kept), notes, c.wantKept, c.wantNotes)
			}
		})
	}
}

func FuzzFit(f *testing.F) {
	f.Add(testPNG(f, 3, 2))
	f.Add([]byte("GIF89a\x01\x00\x01\x00"))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxWidth: 16, MaxHeight: 16, MaxBase64: 4000}
		got, err := Fit(data, lim)
		if err != nil {
			return
		}
		if got.Width > lim.MaxWidth || got.Height > lim.MaxHeight || len(got.Block.Data) > lim.MaxBase64 {
			t.Fatalf("Fit returned %s with %d bytes of base64", got.Size(), len(got.Block.Data))
		}
	})
}

func TestShrinkAveragesBlocks(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 5, 2)) // the fifth column is dropped
	for x := 0; x < 5; x++ {
		for y := 0; y < 2; y++ {
			i := src.PixOffset(x, y)
			src.Pix[i], src.Pix[i+3] = uint8(10*x+y*100), 255
		}
	}
	got := shrink(src, 2)
	if got.Bounds().Dx() != 2 || got.Bounds().Dy() != 1 {
		t.Fatalf("size %v", got.Bounds())
	}
	// (0+10+100+110)/4 = 55, (20+30+120+130)/4 = 75
	if got.Pix[0] != 55 || got.Pix[4] != 75 || got.Pix[3] != 255 {
		t.Errorf("pixels %v", got.Pix)
	}
}
