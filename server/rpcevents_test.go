package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBridgeUpdatesCarryTheReplyNowAndThen: the RPC bridge's message_update events carry
// their delta each, the partial reply in the first one and then only each time it has grown
// by half, so the snapshots of a long reply stay a small multiple of it; set_full_updates
// turns every snapshot back on.
func TestBridgeUpdatesCarryTheReplyNowAndThen(t *testing.T) {
	const chunk = "twelve bytes"
	for _, full := range []bool{false, true} {
		chunks := 4000
		if full {
			chunks = 200 // quadratic: kept short
		}
		var e eventState
		e.full.Store(full)
		e.started(object{"role": "assistant", "content": []any{object{"type": "text", "text": ""}}})
		updates, snapshots, snapshotBytes := 0, 0, 0
		for range chunks {
			for _, ev := range e.progress(object{"type": "assistant_delta", "contentIndex": int64(0), "kind": "text", "delta": chunk}) {
				updates++
				ame, _ := ev["assistantMessageEvent"].(object)
				if ame["delta"] != chunk {
					t.Fatalf("an update without its delta: %v", ame)
				}
				if msg, ok := ev["message"]; ok {
					data, _ := json.Marshal(msg)
					snapshots++
					snapshotBytes += len(data)
				} else if updates == 1 {
					t.Fatal("the first update carries no snapshot")
				}
				if _, ok := ame["partial"]; ok != full {
					t.Fatalf("full %v: assistantMessageEvent.partial present %v", full, ok)
				}
			}
		}
		reply := len(chunk) * chunks
		if got := strings.Repeat(chunk, chunks); str(e.partial["content"].([]any)[0].(object)["text"]) != got {
			t.Fatal("the bridge's partial reply lost text")
		}
		if full && snapshots != updates {
			t.Fatalf("full updates: %d snapshots in %d updates", snapshots, updates)
		}
		if !full && snapshotBytes > 4*reply {
			t.Fatalf("%d snapshots of %d bytes for a reply of %d bytes", snapshots, snapshotBytes, reply)
		}
	}
}
