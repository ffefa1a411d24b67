package tui

// paste.go attaches pictures to the prompt: Ctrl+V takes the clipboard's image, a pasted or
// dropped path of an image file attaches that file, and "@shot.png" in the sent text attaches
// it too. The editor shows an attached picture as a marker, "[image 1: 1280×720]"; the
// markers still in the text when it is sent say which pictures go with it (TakeImages).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"pi/images"
	"pi/provider"
)

// pictures are the images attached in the editor and those that went with the last send.
type pictures struct {
	next     int // the last marker's number
	previews int // previews drawn, for their ids
	attached []attached
	sent     []provider.Block
	sentText string
}

// attached is a picture waiting in the editor for its prompt.
type attached struct {
	marker string
	block  provider.Block
}

// imageMarker is how the editor shows the nth picture.
func imageMarker(n int, f *images.Fitted) string { return fmt.Sprintf("[image %d: %s]", n, f.Size()) }

// pasteImage is Ctrl+V: the clipboard's image, read off the input goroutine (the clipboard
// tool and the scaling may take a moment). Called with a.mu held.
func (a *App) pasteImage() func() {
	read := a.opts.Clipboard
	if read == nil {
		a.status = "image paste is not available here"
		return nil
	}
	a.status = "reading the clipboard…"
	return func() {
		go func() {
			data, err := read(context.Background())
			if err != nil {
				a.attachDone(nil, err)
				return
			}
			f, err := images.Fit(data, images.DefaultLimits)
			a.attachDone(&f, err)
		}()
	}
}

// pastedPath attaches the image file a paste names; it reports false for any other paste.
// Called with a.mu held.
func (a *App) pastedPath(target *Editor, text string) (func(), bool) {
	p, ok := images.PastedPath(text)
	if !ok || target != a.editor {
		return nil, false
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, false
		}
		p = filepath.Join(home, rest)
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return nil, false // a path to nothing is text like any other
	}
	a.status = "attaching " + filepath.Base(p) + "…"
	return func() {
		go func() {
			f, err := images.Load(p, images.DefaultLimits)
			a.attachDone(&f, err)
		}()
	}, true
}

// attachDone puts a picture's marker at the editor's cursor, or says why there is none.
func (a *App) attachDone(f *images.Fitted, err error) {
	a.mu.Lock()
	defer a.unlock()
	a.status = ""
	if err != nil {
		a.add(&noticeView{th: a.theme, level: LevelWarning, text: err.Error()})
		return
	}
	a.pics.next++
	m := imageMarker(a.pics.next, f)
	a.pics.attached = append(a.pics.attached, attached{marker: m, block: f.Block})
	a.editor.snapshot("paste")
	a.editor.insert(m)
	a.requestRender()
}

// takeSent notes the pictures that go with a text being sent, and forgets the rest. Called
// with a.mu held, before the editor is cleared.
func (a *App) takeSent(text string) {
	a.pics.sent, a.pics.sentText = nil, text
	for _, at := range a.pics.attached {
		if strings.Contains(text, at.marker) {
			a.pics.sent = append(a.pics.sent, at.block)
		}
	}
	a.pics.attached, a.pics.next = nil, 0
}

// TakeImages returns the pictures that go with the text just sent (OnSubmit, OnSteer,
// OnFollowUp): those whose markers it holds, then the image files it names as @path (relative
// to Options.Cwd). A callback calls it before it returns; the next send replaces them. An @path
// that cannot be read is shown as a warning and left out.
func (a *App) TakeImages() []provider.Block {
	a.mu.Lock()
	out, text := a.pics.sent, a.pics.sentText
	a.pics.sent, a.pics.sentText = nil, ""
	a.mu.Unlock()
	for _, p := range atImagePaths(text) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(a.opts.Cwd, p)
		}
		if _, err := os.Stat(p); err != nil {
			continue // an address or a file that is not there: the text says what was meant
		}
		f, err := images.Load(p, images.DefaultLimits)
		if err != nil {
			a.Notify(LevelWarning, err.Error())
			continue
		}
		out = append(out, f.Block)
	}
	return out
}

// atImagePaths are the @path words of text that name image files.
func atImagePaths(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		w = strings.TrimRight(w, ".,;:!?)\"'")
		if p, ok := strings.CutPrefix(w, "@"); ok && images.HasImageName(p) {
			out = append(out, strings.Trim(p, `"'`))
		}
	}
	return out
}
