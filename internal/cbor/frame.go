package cbor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// DefaultMaxFrame is the largest payload a frame may declare unless configured otherwise.
const DefaultMaxFrame = 16 << 20

// ErrFrameTooLarge is returned when a frame's header declares more than the limit.
var ErrFrameTooLarge = errors.New("frame exceeds the size limit")

// ErrTruncatedFrame is returned when the stream ends inside a frame's header or payload.
var ErrTruncatedFrame = errors.New("truncated frame at end of stream")

// AppendFrame appends payload with its 4-byte big-endian length in front.
func AppendFrame(dst, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

// FrameReader splits a byte stream into frames, however the bytes arrive.
type FrameReader struct {
	r   io.Reader
	max uint32
	buf []byte
}

// NewFrameReader reads frames of at most max payload bytes from r (0: DefaultMaxFrame).
func NewFrameReader(r io.Reader, max uint32) *FrameReader {
	if max == 0 {
		max = DefaultMaxFrame
	}
	return &FrameReader{r: r, max: max}
}

// Next returns the next frame's payload, valid until the next call. It checks the declared
// length as soon as the header is in, before reading any of the payload. At a clean end of
// the stream it returns io.EOF.
func (fr *FrameReader) Next() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(fr.r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, ErrTruncatedFrame
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > fr.max {
		return nil, fmt.Errorf("%w: %d bytes declared, limit %d", ErrFrameTooLarge, n, fr.max)
	}
	// The payload grows as it arrives: a header alone must not make the reader hold the
	// whole limit.
	fr.buf = fr.buf[:0]
	for len(fr.buf) < int(n) {
		chunk := min(int(n)-len(fr.buf), 64<<10)
		start := len(fr.buf)
		fr.buf = slices.Grow(fr.buf, chunk)[:start+chunk]
		if _, err := io.ReadFull(fr.r, fr.buf[start:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, ErrTruncatedFrame
			}
			return nil, err
		}
	}
	return fr.buf, nil
}
