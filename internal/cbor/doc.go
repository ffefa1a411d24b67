// Package cbor is the strict subset of CBOR (RFC 8949) that pi's session-server protocol
// speaks, and the 4-byte big-endian length framing around it. It owns encoding and decoding
// and nothing else; it imports nothing of this module.
//
// The subset is the one upstream pi's own codec accepts, so a message either side writes the
// other reads:
//
//   - unsigned and negative integers within ±(2^53−1), text strings of valid UTF-8, arrays,
//     maps with text keys and no duplicates, false, true, null, and 64-bit floats that are
//     finite (an integral float must also be a safe integer);
//   - no tags, no indefinite lengths, no break byte, no 16- or 32-bit floats, no undefined or
//     other simple values, nothing after the item; nesting at most Limits.MaxDepth deep.
//
// Byte strings decode (to []byte), because the codec allows them, but the protocol's messages
// never carry one.
//
// The encoder writes what upstream's writes: shortest integer heads, whole numbers as integers
// and every other number (and −0) as a float64, struct fields in declaration order, map keys
// sorted, and optional fields left out rather than null.
//
// Written here rather than taken from a library: the subset is about 300 lines, and a general
// library would have to be configured away from most of what it does (tags, float16/32,
// indefinite lengths, integer keys) with any default we missed becoming a wire difference.
package cbor
