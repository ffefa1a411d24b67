package images

import (
	"encoding/base64"
	"fmt"
	"strings"

	"pi/provider"
)

// Prepare readies the image blocks of a prompt for a model: each is fitted to lim, or, when
// the model takes no images (acceptsImages false) or an image cannot be used, left out with a
// short note. It returns the blocks to send and the notes to add to the prompt's text, one
// line each ("" when there is nothing to say). It never fails: a bad image is a note.
func Prepare(blocks []provider.Block, acceptsImages bool, model string, lim Limits) ([]provider.Block, string) {
	var out []provider.Block
	var notes []string
	for i, b := range blocks {
		if b.Type != provider.BlockImage {
			out = append(out, b)
			continue
		}
		if !acceptsImages {
			notes = append(notes, OmittedNote(model))
			continue
		}
		f, err := FitBlock(b, lim)
		if err != nil {
			notes = append(notes, fmt.Sprintf("[image %d left out: %v]", i+1, err))
			continue
		}
		out = append(out, f.Block)
		if f.Note != "" {
			notes = append(notes, f.Note)
		}
	}
	return out, strings.Join(notes, "\n")
}

// OmittedNote is what a model that takes no images is told instead of an image.
func OmittedNote(model string) string {
	if model == "" {
		return "[image omitted: the current model does not take images]"
	}
	return fmt.Sprintf("[image omitted: %s does not take images]", model)
}

// FitBlock fits an image block (base64 data, as RPC clients send it) to lim.
func FitBlock(b provider.Block, lim Limits) (Fitted, error) {
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return Fitted{}, fmt.Errorf("the image's base64 data: %w", err)
	}
	return Fit(data, lim)
}

// ForModel is Prepare for a prompt's images with the default limits: the notes, if any,
// come as a text block before the images, so that the prompt's own text (a command, a
// template's arguments) stays as it was typed.
func ForModel(blocks []provider.Block, acceptsImages bool, model string) []provider.Block {
	if len(blocks) == 0 {
		return blocks
	}
	kept, notes := Prepare(blocks, acceptsImages, model, DefaultLimits)
	if notes != "" {
		kept = append([]provider.Block{provider.Text(notes)}, kept...)
	}
	return kept
}
