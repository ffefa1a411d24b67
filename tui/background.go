package tui

import (
	"sync"
	"time"

	"pi/tui/theme"
)

// bgTimeout is how long startup waits for the terminal to say what its background is; a
// terminal that answers at all answers within a round trip, and the DA1 answer that follows
// the question ends the wait early on one that does not know OSC 11.
const bgTimeout = 150 * time.Millisecond

// bgProbe listens for the terminal's answers to theme.Query in what the input reader reads,
// and hands on the rest: keys typed while pi starts are kept (theme.Answers).
type bgProbe struct {
	answers theme.Answers // the reader's goroutine only

	mu      sync.Mutex
	known   bool // an OSC 11 answer came
	dark    bool
	done    chan struct{} // closed once an answer (OSC 11 or DA1) came
	closed  bool
	fromEnv func() bool // the background when the terminal did not say
}

func newBgProbe(fromEnv func() bool) *bgProbe {
	return &bgProbe{done: make(chan struct{}), fromEnv: fromEnv}
}

// see looks at bytes read from the terminal and returns those for the key parser.
func (p *bgProbe) see(b []byte) []byte {
	keys, bg, ok, da := p.answers.Scan(b)
	if !ok && !da {
		return keys
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ok && !p.known {
		p.known, p.dark = true, bg.Dark()
	}
	if !p.closed {
		p.closed = true
		close(p.done)
	}
	return keys
}

// wait waits until the terminal answered, or for at most d.
func (p *bgProbe) wait(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
}

// darkBackground says whether the background is dark: the terminal's answer when it gave one.
func (p *bgProbe) darkBackground() bool {
	p.mu.Lock()
	known, dark := p.known, p.dark
	p.mu.Unlock()
	if known {
		return dark
	}
	return p.fromEnv()
}
