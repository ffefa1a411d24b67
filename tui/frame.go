package tui

import (
	"fmt"
	"time"
)

// requestRender asks for a frame, coalescing requests so that frames are at least
// frameInterval apart. A request while a frame is being written is served once the write is
// done: none is lost. Called with a.mu held.
func (a *App) requestRender() {
	a.dirty = true
	if a.opts.ManualFrames || a.closed || a.timer != nil || a.writing {
		return
	}
	wait := max(0, frameInterval-a.now().Sub(a.lastFrame))
	a.timer = time.AfterFunc(wait, a.frameDue)
}

func (a *App) frameDue() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.timer = nil
	a.drawAndWrite()
}

// Flush draws a frame now.
func (a *App) Flush() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.drawAndWrite()
}

// drawAndWrite draws a frame and writes it to the terminal with a.mu released, so that a
// terminal that is slow to take output never holds up keys or agent events; what changes
// meanwhile goes into the next frame. Called with a.mu held, returns with it held.
func (a *App) drawAndWrite() {
	a.waitWrite()
	a.draw()
	if a.out.Len() == 0 {
		return
	}
	a.writing = true
	a.mu.Unlock()
	_, err := a.term.Write(a.out.Bytes())
	a.mu.Lock()
	a.wrote(err)
	a.writing = false
	a.writeDone.Broadcast()
	if a.dirty {
		a.requestRender()
	}
}

// waitWrite waits until no frame is being written. Called with a.mu held.
func (a *App) waitWrite() {
	for a.writing {
		a.writeDone.Wait()
	}
}

// writeNow writes what the renderer has buffered while holding a.mu: for the last frames,
// when nothing else may draw any more.
func (a *App) writeNow() {
	if a.out.Len() > 0 {
		_, err := a.term.Write(a.out.Bytes())
		a.wrote(err)
	}
}

// wrote records the first error writing to the terminal and empties the frame buffer.
func (a *App) wrote(err error) {
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("render frame of %d bytes: %w", a.out.Len(), err)
	}
	a.out.Reset()
}

// startTicker redraws ten times a second while working, for the spinner and the clocks.
func (a *App) startTicker() {
	if a.opts.ManualFrames || a.ticker != nil {
		return
	}
	a.ticker = time.NewTicker(100 * time.Millisecond)
	stop := make(chan struct{})
	a.stopTick = stop
	go func(c <-chan time.Time) {
		for {
			select {
			case <-c:
				a.mu.Lock()
				a.requestRender()
				a.mu.Unlock()
			case <-stop:
				return
			}
		}
	}(a.ticker.C)
}

func (a *App) stopTicker() {
	if a.ticker != nil {
		a.ticker.Stop()
		close(a.stopTick)
		a.ticker = nil
	}
}

// draw commits final entries, renders the live region and writes the frame. Called with
// a.mu held.
func (a *App) draw() {
	if a.closed {
		return
	}
	a.lastFrame, a.dirty = a.now(), false
	width, height := a.r.Size()
	for len(a.live) > 0 && a.live[0].e.final() {
		a.commit = append(a.commit, a.entryLines(a.live[0], width)...)
		a.live = a.live[1:]
		a.anyOutput = true
	}
	var lines []string
	counts := make([]int, len(a.live))
	for i, le := range a.live {
		l := a.entryLines(le, width)
		counts[i] = len(l)
		lines = append(lines, l...)
	}
	chrome := a.chrome(width, height)
	lines = append(lines, chrome...)
	spilled, _ := a.r.Frame(a.commit, lines, len(chrome)) // into a.out, which cannot fail
	a.commit = a.commit[:0]
	a.spill(spilled, counts)
}

// entryLines renders an entry with its separator, minus the lines already in scrollback.
func (a *App) entryLines(le *liveEntry, width int) []string {
	lines := le.e.Render(width)
	if le.sep && len(lines) > 0 { // an entry with nothing to show yet takes no room
		lines = append([]string{""}, lines...)
	}
	if le.skip >= len(lines) {
		return nil
	}
	return lines[le.skip:]
}

// spill records that the first n live lines went to scrollback, entry by entry, and tells
// the entries so that they keep those lines stable.
func (a *App) spill(n int, counts []int) {
	for i, le := range a.live {
		if n <= 0 {
			return
		}
		take := min(n, counts[i])
		le.skip += take
		n -= take
		a.anyOutput = true
		if f, ok := le.e.(freezer); ok {
			sep := 0
			if le.sep {
				sep = 1
			}
			f.Freeze(le.skip - sep)
		}
	}
}

// chrome is everything below the transcript: queue, status, editor (or an open question),
// popup, footer. It takes at most height-1 rows, so that it never spills into scrollback and
// the newest transcript line shows above it. On a short screen the editor shows fewer rows,
// and lines that matter less give way first: the blank line above, the popup, the queue, the
// status line, the editor's borders, the footer's first line.
func (a *App) chrome(width, height int) []string {
	budget := max(height-1, 1)
	footer := renderFooter(a.footer, width)
	status := renderStatus(a.working, a.workSince, a.now(), a.status, width)
	var sep []string
	if len(a.live) > 0 || a.anyOutput {
		sep = []string{""}
	}
	parts := []chromePart{{sep, 1}, {renderQueue(a.steer, a.follow, width), 3}, {status, 4}}
	if a.modal != nil {
		parts = append(parts, chromePart{a.modal.Render(width), 6})
	} else {
		ed := a.editor.renderRows(width, min(editorMaxRows, budget-len(footer)-len(status)-2))
		popup := a.complete.Render(width)
		popup = popup[:min(len(popup), max(height/2, 3))]
		parts = append(parts, chromePart{ed[:1], 5}, chromePart{ed[1 : len(ed)-1], 7},
			chromePart{ed[len(ed)-1:], 5}, chromePart{popup, 2})
	}
	parts = append(parts, chromePart{footer[:1], 6}, chromePart{footer[1:], 8})
	return fitChrome(parts, budget)
}

// chromePart is some lines of the chrome and how much they matter (higher stays longer).
type chromePart struct {
	lines []string
	prio  int
}

// fitChrome keeps, in order, the budget lines that matter most (earlier ones on a tie).
func fitChrome(parts []chromePart, budget int) []string {
	var lines []string
	var prio []int
	for _, p := range parts {
		for _, l := range p.lines {
			lines, prio = append(lines, l), append(prio, p.prio)
		}
	}
	for cut := 0; len(lines) > budget; cut++ { // drop the least important lines, last first
		for i := len(lines) - 1; i >= 0 && len(lines) > budget; i-- {
			if prio[i] == cut {
				lines, prio = append(lines[:i], lines[i+1:]...), append(prio[:i], prio[i+1:]...)
			}
		}
	}
	return lines
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// Close draws a last frame (entries still running as they are) and leaves the cursor below it.
// The App draws nothing afterwards.
func (a *App) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return a.err
	}
	a.stopTicker()
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	a.waitWrite()
	a.working, a.status, a.complete.items = false, "", nil
	a.draw()
	a.closed = true
	a.r.Finish()
	a.writeNow()
	return a.err
}

// pause stops drawing and leaves the cursor below the live region (before a suspend).
func (a *App) pause() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.waitWrite()
	a.draw()
	a.r.Finish()
	a.writeNow()
	a.closed = true
}

// resume draws the live region afresh at the cursor (after fg).
func (a *App) resume() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = false
	a.drawAndWrite()
}
