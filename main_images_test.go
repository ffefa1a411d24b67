package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"pi/images"
	"pi/internal/pitest"
	"pi/provider"
	"pi/provider/faux"
)

// stripedPNG is a w×h grey PNG with detail enough not to compress to nothing.
func stripedPNG(t *testing.T, w, h int) string {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*7 + i/w*13)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// TestRPCPromptImagesAreFittedOrNoted: an RPC prompt's image takes the way every image takes:
// a vision model gets it fitted to 2000×2000 and the byte limit, with a note of what was done;
// a text-only model gets a note instead, never an error.
func TestRPCPromptImagesAreFittedOrNoted(t *testing.T) {
	vision := pitest.FauxModel(false)
	vision.Input = []string{"text", "image"}
	big := stripedPNG(t, 4000, 2000)
	cases := []struct {
		name       string
		model      provider.Model
		wantImages int
		wantNote   string
	}{
		{"vision model gets the image resized", vision, 1, "resized from 4000×2000 to 2000×1000"},
		{"text-only model gets a note", pitest.FauxModel(false), 0, "[image omitted: faux-1 does not take images]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var sent []provider.Message
			a := newOpsApp(t, c.model, faux.Reply(func(req *provider.Request) provider.Message {
				mu.Lock()
				sent = req.Messages
				mu.Unlock()
				return faux.Text("seen")
			}))
			cl, _, stop := startInProcess(t, context.Background(), a)
			defer stop()
			from := cl.mark()
			cl.mustCall(map[string]any{"type": "prompt", "message": "what is this?",
				"images": []map[string]any{{"type": "image", "data": big, "mimeType": "image/png"}}})
			cl.awaitEvent(from, "agent_end")
			mu.Lock()
			defer mu.Unlock()
			if len(sent) == 0 {
				t.Fatal("the model was not called")
			}
			user := sent[len(sent)-1]
			var imgs []provider.Block
			for _, b := range user.Content {
				if b.Type == provider.BlockImage {
					imgs = append(imgs, b)
				}
			}
			if len(imgs) != c.wantImages || !strings.Contains(user.TextContent(), c.wantNote) ||
				!strings.Contains(user.TextContent(), "what is this?") {
				t.Fatalf("the model was sent %d images and %q", len(imgs), user.TextContent())
			}
			for _, b := range imgs {
				f, err := images.FitBlock(b, images.DefaultLimits)
				if err != nil || f.Width > 2000 || f.Height > 2000 || len(b.Data) > images.DefaultLimits.MaxBase64 || f.Resized() {
					t.Errorf("sent %s (%d bytes of base64, %v), not within the limits", f.Size(), len(b.Data), err)
				}
			}
		})
	}
}

// pi --export SESSION [file] writes the session's page; SESSION may be its file or the start
// of its id, and an @image prompt shows inline in the page.
func TestBinaryExportsASession(t *testing.T) {
	bin := buildPi(t)
	dir := t.TempDir()
	png, _ := base64.StdEncoding.DecodeString(stripedPNG(t, 40, 30))
	os.WriteFile(filepath.Join(dir, "shot.png"), png, 0o644)
	hello, _ := filepath.Abs(filepath.Join("testdata", "faux", "hello.json"))
	if r := runPi(t, bin, dir, "-p", "--faux-script", hello, "@shot.png", "what is this?"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".pihome", "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	id = id[strings.LastIndex(id, "_")+1:]
	for _, ref := range []string{files[0], id[:8]} {
		r := runPi(t, bin, dir, "--export", ref, "out.html")
		page, err := os.ReadFile(filepath.Join(dir, "out.html"))
		if r.code != 0 || err != nil || strings.TrimSpace(r.stdout) != filepath.Join(dir, "out.html") {
			t.Fatalf("--export %s: exit %d, %q, %s, %v", ref, r.code, r.stdout, r.stderr, err)
		}
		if !strings.Contains(string(page), "what is this?") || !strings.Contains(string(page), `src="data:image/png;base64,`) {
			t.Errorf("--export %s: the page lacks the prompt or its image", ref)
		}
		os.Remove(filepath.Join(dir, "out.html"))
	}
	if r := runPi(t, bin, dir, "--export", "ffffffffff"); r.code == 0 || !strings.Contains(r.stderr, "--export") {
		t.Errorf("an unknown session: exit %d, %s", r.code, r.stderr)
	}
}
