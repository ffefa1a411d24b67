package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"sync"
	"testing"

	"pi/images"
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
	vision := fauxModel(false)
	vision.Input = []string{"text", "image"}
	big := stripedPNG(t, 6000, 4000)
	cases := []struct {
		name       string
		model      provider.Model
		wantImages int
		wantNote   string
	}{
		{"vision model gets the image resized", vision, 1, "resized from 6000×4000 to 2000×1333"},
		{"text-only model gets a note", fauxModel(false), 0, "[image omitted: faux-1 does not take images]"},
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
