package replay

import (
	"fmt"

	"pi/provider"
)

// CheckEvents verifies the shape every provider's stream must have: start first, exactly one
// done or error, last, carrying the final message; block events well nested, each block
// opened once and closed once before the next opens, with indexes in order.
func CheckEvents(evs []provider.Event) error {
	if len(evs) < 2 || evs[0].Type != provider.EventStart {
		return fmt.Errorf("a stream starts with start and ends with done or error; got %d events", len(evs))
	}
	last := evs[len(evs)-1]
	if (last.Type != provider.EventDone && last.Type != provider.EventError) || last.Message == nil {
		return fmt.Errorf("last event is %s", last.Type)
	}
	open, next := -1, 0
	for i, e := range evs[1 : len(evs)-1] {
		switch e.Type {
		case provider.EventStart, provider.EventDone, provider.EventError:
			return fmt.Errorf("event %d: %s in the middle of a stream", i+1, e.Type)
		case provider.EventTextStart, provider.EventThinkingStart, provider.EventToolCallStart:
			if open >= 0 || e.ContentIndex != next {
				return fmt.Errorf("event %d: %s at %d while block %d is open (next %d)", i+1, e.Type, e.ContentIndex, open, next)
			}
			open, next = e.ContentIndex, next+1
		case provider.EventTextEnd, provider.EventThinkingEnd, provider.EventToolCallEnd:
			if open != e.ContentIndex {
				return fmt.Errorf("event %d: %s at %d while block %d is open", i+1, e.Type, e.ContentIndex, open)
			}
			open = -1
		default:
			if open != e.ContentIndex {
				return fmt.Errorf("event %d: %s at %d while block %d is open", i+1, e.Type, e.ContentIndex, open)
			}
		}
	}
	if open >= 0 {
		return fmt.Errorf("block %d never closed", open)
	}
	if n := len(last.Message.Content); n != next {
		return fmt.Errorf("final message has %d blocks, the stream opened %d", n, next)
	}
	return nil
}
