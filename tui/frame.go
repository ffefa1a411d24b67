package tui

import (
	"fmt"
	"time"
)

// requestRender asks for a frame, coalescing requests so that frames are at least
// frameInterval apart. A frame not due yet is left to the frame timer; one that is due is
// drawn as the App method that asked returns (unlock), on the caller's goroutine, which
// spares waking another. A request while a frame is being written is served once the write
// is done: none is lost. Called with a.mu held; the caller ends with unlock or unlockAsync.
func (a *App) requestRender() {
	a.dirty = true
	if wait := frameInterval - a.now().Sub(a.lastFrame); wait > 0 {
		a.startTimer(wait)
	}
}

// startTimer makes sure a frame follows after wait, unless one is on its way.
func (a *App) startTimer(wait time.Duration) {
	if !a.opts.ManualFrames && !a.closed && !a.writing && a.timer == nil {
		a.timer = time.AfterFunc(wait, a.frameDue)
	}
}

// unlock releases a.mu at the end of an App method, drawing and writing first the frame it
// asked for if that is due (a frame not due has its timer).
func (a *App) unlock() {
	if a.dirty && !a.opts.ManualFrames && !a.closed && !a.writing && a.timer == nil {
		a.drawAndWrite()
	}
	a.mu.Unlock()
}

// unlockAsync is unlock for the input goroutine, which must never wait for the terminal to
// take output: the frame is left to the timer's goroutine.
func (a *App) unlockAsync() {
	if a.dirty {
		a.startTimer(0)
	}
	a.mu.Unlock()
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
	if a.dirty { // changed while the frame was written: the next one follows in due time
		a.startTimer(max(0, frameInterval-a.now().Sub(a.lastFrame)))
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

// startTicker keeps the spinner and the clocks moving while the agent works: a frame follows
// tickInterval after the last one (draw sets the timer again), so a stream that draws frames
// anyway wakes nothing more.
func (a *App) startTicker() {
	if a.opts.ManualFrames || a.ticking {
		return
	}
	a.ticking = true
	if a.tick == nil {
		a.tick = time.AfterFunc(tickInterval, a.tickDue)
	} else {
		a.tick.Reset(tickInterval)
	}
}

func (a *App) stopTicker() {
	if a.ticking {
		a.ticking = false
		a.tick.Stop()
	}
}

func (a *App) tickDue() {
	a.mu.Lock()
	if a.ticking {
		a.requestRender()
	}
	a.unlock()
}

// draw commits final entries, renders the live region and writes the frame. Called with
// a.mu held.
func (a *App) draw() {
	if a.closed {
		return
	}
	a.lastFrame, a.dirty = a.now(), false
	if a.ticking {
		a.tick.Reset(tickInterval)
	}
	width, height := a.r.Size()
	for len(a.live) > 0 && a.live[0].e.final() {
		a.noteFolded(a.live[0].e)
		a.commit, _ = a.entryLines(a.commit, a.live[0], width)
		a.live = a.live[1:]
		a.anyOutput = true
	}
	lines, counts := a.frameLines[:0], a.counts[:0] // kept from frame to frame, to spare garbage
	for _, le := range a.live {
		var n int
		lines, n = a.entryLines(lines, le, width)
		counts = append(counts, n)
	}
	chrome := a.chrome(width, height)
	lines = append(lines, chrome...)
	spilled, _ := a.r.Frame(a.commit, lines, len(chrome)) // into a.out, which cannot fail
	clear(a.commit)
	a.commit, a.frameLines, a.counts = a.commit[:0], lines, counts
	a.spill(spilled, counts)
}

// entryLines appends to dst the lines of an entry with its separator, minus the lines
// already in scrollback, and returns how many it appended.
func (a *App) entryLines(dst []string, le *liveEntry, width int) ([]string, int) {
	sep := btoi(le.sep)
	from := max(le.skip-sep, 0)
	start := len(dst)
	if le.skip < sep {
		dst = append(dst, "")
	}
	total := 0
	if t, ok := le.e.(tailRenderer); ok {
		dst, total = t.renderTail(dst, width, from)
	} else {
		all := le.e.Render(width)
		total = len(all)
		dst = append(dst, all[min(from, total):]...)
	}
	if total == 0 { // an entry with nothing to show yet takes no room
		dst = dst[:start]
	}
	return dst, len(dst) - start
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
		a.noteFolded(le.e) // its top is in the scrollback now
		n -= take
		a.anyOutput = true
		if f, ok := le.e.(freezer); ok {
			f.Freeze(le.skip - btoi(le.sep))
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
	if a.footerLines == nil || a.footerDrawn != a.footer || a.footerWidth != width {
		a.footerLines, a.footerDrawn, a.footerWidth = renderFooter(a.theme, a.footer, width), a.footer, width
	}
	footer := a.footerLines
	status := a.statusLine(width)
	var sep []string
	if len(a.live) > 0 || a.anyOutput {
		sep = []string{""}
	}
	parts := []chromePart{{sep, 1}, {renderQueue(a.theme, a.steer, a.follow, width), 3}, {status, 4},
		{widgetLines(a.ext.above, width), 3}}
	if a.modal != nil {
		parts = append(parts, chromePart{a.modal.render(a.theme, width, budget-len(footer)-len(status)-1), 6})
	} else {
		ed := a.editor.renderRows(width, min(editorMaxRows, budget-len(footer)-len(status)-2))
		popup := a.complete.render(a.theme, width)
		popup = popup[:min(len(popup), max(height/2, 3))]
		parts = append(parts, chromePart{ed[:1], 5}, chromePart{ed[1 : len(ed)-1], 7},
			chromePart{ed[len(ed)-1:], 5}, chromePart{popup, 2})
	}
	parts = append(parts, chromePart{widgetLines(a.ext.below, width), 3}, chromePart{footer[:1], 6},
		chromePart{footer[1:], 8}, chromePart{statusSegments(a.theme, a.ext.status, width), 4})
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
	n := 0
	for _, p := range parts {
		n += len(p.lines)
	}
	if n <= budget { // it all fits, as it nearly always does
		lines = make([]string, 0, n)
		for _, p := range parts {
			lines = append(lines, p.lines...)
		}
		return lines
	}
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

// statusLine is renderStatus, drawn again only when what it shows changes: the spinner
// moves ten times a second, frames come up to sixty times.
func (a *App) statusLine(width int) []string {
	key := statusKey{a.working, a.status, width, 0}
	if a.working {
		key.tick = int64(a.now().Sub(a.workSince) / tickInterval)
	}
	if key != a.statusFor || a.statusLines == nil {
		a.statusLines, a.statusFor = renderStatus(a.theme, a.working, a.workSince, a.now(), a.status, width), key
	}
	return a.statusLines
}

// statusKey is what the status line depends on: the spinner's frame and the seconds shown
// both follow from the ticks since work began.
type statusKey struct {
	working bool
	msg     string
	width   int
	tick    int64
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
