package tools

// readimage.go is read's and @file's side of images: a picture is fitted (scaled and
// re-encoded when too large) by images.Fit, so the result, and the session file after it,
// holds the image as the model sees it.

import (
	"fmt"

	"pi/images"
	"pi/provider"
)

// imageMIME recognises the image formats models take by their first bytes.
func imageMIME(b []byte) string { return images.MIME(b) }

// readImage is read's result for an image file: a line naming it (and what fitting did) and
// the image, or a note when the model takes no images or the picture cannot be used.
func readImage(env *Env, name, mime string, data []byte) Result {
	if !env.imagesAllowed() {
		return TextResult(fmt.Sprintf("%s is an image (%s); the current model does not take images, so it is left out.", name, mime))
	}
	f, err := images.Fit(data, images.DefaultLimits)
	if err != nil {
		return TextResult(fmt.Sprintf("%s is an image (%s) that cannot be sent: %v.", name, mime, err))
	}
	text := fmt.Sprintf("Image file %s [%s, %s]", name, f.Block.MimeType, f.Size())
	if f.Note != "" {
		text += "\n" + f.Note
	}
	return Result{Content: []provider.Block{provider.Text(text), f.Block}}
}
