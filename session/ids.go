package session

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// timeLayout is JavaScript's Date.toISOString: UTC, always milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

func isoTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// newEntryID returns 8 hex digits not yet used in taken. pi takes the start of a random UUID;
// 32 random bits collide rarely, and the check makes it never. After many failures (a session
// with billions of entries) it falls back to a whole UUID, as pi does.
func newEntryID(taken func(string) bool) string {
	var b [4]byte
	for range 100 {
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		id := hex.EncodeToString(b[:])
		if !taken(id) {
			return id
		}
	}
	return newUUID(time.Now())
}

// newUUID returns a version 7 UUID (time-ordered, as pi 0.73 uses for session ids).
func newUUID(now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	ms := uint64(now.UnixMilli())
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], ms)
	copy(b[:6], ts[2:])
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:])
}

// fileName is pi's name for a session file: the creation time with ':' and '.' replaced by
// '-', an underscore, the session id.
func fileName(timestamp, id string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(timestamp) + "_" + id + ".jsonl"
}
