package agent

import "sync"

// updates.go keeps message_update's JSON linear in the reply. Each update carries its delta
// (assistantMessageEvent); the whole partial reply only at geometrically spaced points, so
// that a client writing a long reply to its output does not write it once per token.

// UpdateDetail says how much of the partial reply a message_update's JSON carries.
type UpdateDetail uint8

const (
	// UpdateFull is pi's shape, every time: message and assistantMessageEvent.partial.
	UpdateFull UpdateDetail = iota
	// UpdateSnapshot carries message (the partial reply) and the delta, not partial again.
	UpdateSnapshot
	// UpdateDelta carries only assistantMessageEvent, without partial.
	UpdateDelta
)

// minSnapshotStep is the least growth between two snapshots, so that a reply's first
// kilobyte does not cost a snapshot per token while the message's fixed fields dominate.
const minSnapshotStep = 1 << 10

// UpdateGate decides, for one output stream, which message_update events carry a snapshot:
// the first of each reply, then each one once the reply has grown by half since the last
// snapshot (and by minSnapshotStep). All snapshots of a reply of n bytes then add up to at
// most about 3n plus their fixed fields, however fast or slow it streams. Full turns the
// gate off (every update in pi's shape). The zero gate is ready; it is safe for concurrent use.
type UpdateGate struct {
	mu      sync.Mutex
	full    bool
	replies map[string]*replyPace // by the chain of subagent ids, "" for the session's own
}

// SetFull turns every-update snapshots on or off (a client's --full-updates or RPC option).
func (g *UpdateGate) SetFull(full bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.full = full
}

// replyPace is one streaming reply's count of delta bytes and where the next snapshot falls.
type replyPace struct {
	grown, next int
}

// Thin returns ev as this stream should write it: a message_update (also one inside a
// subagent_event) gets its Detail; other events come back unchanged. ev itself, which other
// subscribers share, is not modified.
func (g *UpdateGate) Thin(ev Event) Event {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.full {
		return ev
	}
	return g.thin(ev, "")
}

func (g *UpdateGate) thin(ev Event, chain string) Event {
	switch ev.Type {
	case EvSubagent:
		if ev.Sub != nil {
			sub := g.thin(*ev.Sub, chain+"/"+ev.AgentID)
			ev.Sub = &sub
		}
	case EvMessageStart, EvMessageEnd:
		if g.replies != nil {
			delete(g.replies, chain)
		}
	case EvMessageUpdate:
		ev.Detail = g.pace(chain).detail(ev)
	}
	return ev
}

func (g *UpdateGate) pace(chain string) *replyPace {
	if g.replies == nil {
		g.replies = map[string]*replyPace{}
	}
	p := g.replies[chain]
	if p == nil {
		p = &replyPace{}
		g.replies[chain] = p
	}
	return p
}

// detail counts the update's delta and says whether it is the next snapshot.
func (p *replyPace) detail(ev Event) UpdateDetail {
	if ae := ev.AssistantEvent; ae != nil {
		p.grown += len(ae.Delta)
	}
	if p.grown < p.next {
		return UpdateDelta
	}
	p.next = p.grown + max(p.grown/2, minSnapshotStep)
	return UpdateSnapshot
}
