package cbor

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"testing/iotest"
)

// FuzzDecode: any input either fails with ErrInvalid or decodes to a value that encodes and
// decodes back to itself.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"a2647479706565686568656c6c6f6776657273696f6e01", "9f00ff", "fb7ff8000000000000",
		"a26161006161 01", "83f4f5f6", "c100", "1b001fffffffffffff", "6163"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b, Limits{MaxItems: 1000})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			return
		}
		if containsBytes(v) {
			return // byte strings decode but the encoder refuses them
		}
		enc, err := Marshal(v)
		if err != nil {
			t.Fatalf("re-encoding %#v: %v", v, err)
		}
		back, err := Decode(enc, Limits{MaxItems: 1000})
		if err != nil || !reflect.DeepEqual(normalise(v), normalise(back)) {
			t.Fatalf("round trip of %#v gave %#v, %v", v, back, err)
		}
	})
}

func containsBytes(v any) bool {
	switch x := v.(type) {
	case []byte:
		return true
	case []any:
		for _, e := range x {
			if containsBytes(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if containsBytes(e) {
				return true
			}
		}
	}
	return false
}

// normalise turns whole floats into integers, as the encoder writes them.
func normalise(v any) any {
	switch x := v.(type) {
	case float64:
		if b, _ := Marshal(x); len(b) > 0 && b[0] != 0xfb {
			return int64(x)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalise(e)
		}
		return out
	}
	return v
}

// FuzzFrameReader: however the bytes are split, the frames read are the same, and none is
// over the limit.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x03abc\x00\x00\x00\x00"), uint8(3))
	f.Add([]byte("\x00\x00\x01\x00"), uint8(1))
	f.Add([]byte("\x00\x00"), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, split uint8) {
		const limit = 64
		whole, wholeErr := readAll(NewFrameReader(bytes.NewReader(b), limit))
		var r io.Reader = iotest.OneByteReader(bytes.NewReader(b))
		if split%2 == 0 {
			r = iotest.HalfReader(bytes.NewReader(b))
		}
		parts, partsErr := readAll(NewFrameReader(r, limit))
		if !reflect.DeepEqual(whole, parts) || (wholeErr == nil) != (partsErr == nil) {
			t.Fatalf("whole: %q %v; split: %q %v", whole, wholeErr, parts, partsErr)
		}
		for _, p := range whole {
			if len(p) > limit {
				t.Fatalf("a frame of %d bytes passed the limit", len(p))
			}
		}
	})
}

func readAll(fr *FrameReader) ([][]byte, error) {
	var out [][]byte
	for {
		p, err := fr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, append([]byte{}, p...))
	}
}
