package cbor

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeAcceptsTheSubset(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want any
	}{
		{"upstream client hello", "a2 64 74797065 65 68656c6c6f 67 76657273696f6e 01",
			map[string]any{"type": "hello", "version": int64(1)}},
		{"zero", "00", int64(0)},
		{"non-shortest head", "1b 0000000000000001", int64(1)},
		{"negative", "38 63", int64(-100)},
		{"largest safe", "1b 001fffffffffffff", int64(MaxSafeInt)},
		{"smallest safe", "3b 001ffffffffffffe", int64(-MaxSafeInt)},
		{"float64", "fb 3ff8000000000000", 1.5},
		{"false true null", "83 f4 f5 f6", []any{false, true, nil}},
		{"empty text", "60", ""},
		{"utf-8 text", "63 e282ac", "€"},
		{"byte string", "42 0102", []byte{1, 2}},
		{"nested", "a1 61 61 81 a0", map[string]any{"a": []any{map[string]any{}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Decode(unhex(t, c.in), Limits{})
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestDecodeRefusesWhatIsOutsideTheSubset(t *testing.T) {
	deep := strings.Repeat("81", 66) + "00"
	cases := []struct{ name, in string }{
		{"empty payload", ""},
		{"trailing bytes", "00 00"},
		{"tag", "c1 00"},
		{"time tag", "c0 60"},
		{"indefinite array", "9f ff"},
		{"indefinite map", "bf ff"},
		{"indefinite text", "7f ff"},
		{"break", "ff"},
		{"float16", "f9 3c00"},
		{"float32", "fa 3f800000"},
		{"undefined", "f7"},
		{"simple value", "f0"},
		{"one-byte simple", "f8 20"},
		{"NaN", "fb 7ff8000000000000"},
		{"infinity", "fb 7ff0000000000000"},
		{"unsafe integral float", "fb 4340000000000000"},
		{"unsafe unsigned", "1b 0020000000000000"},
		{"unsafe negative", "3b 001fffffffffffff"},
		{"reserved additional info", "1c"},
		{"integer key", "a1 01 00"},
		{"duplicate key", "a2 61 61 00 61 61 01"},
		{"invalid utf-8", "62 c328"},
		{"encoded surrogate", "63 eda080"},
		{"truncated text", "65 6162"},
		{"truncated array", "83 00 00"},
		{"huge array count", "9b 0000000100000000"},
		{"too deep", deep},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if v, err := Decode(unhex(t, c.in), Limits{}); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode = %#v, %v; want an ErrInvalid error", v, err)
			}
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	if _, err := Decode(unhex(t, "64 61626364"), Limits{MaxBytes: 3}); err == nil {
		t.Error("a 4-byte string passed a 3-byte limit")
	}
	if _, err := Decode(unhex(t, "83 00 00 00"), Limits{MaxItems: 2}); err == nil {
		t.Error("a 3-item array passed a 2-item limit")
	}
	if _, err := Decode(unhex(t, "81 81 00"), Limits{MaxDepth: 1}); err == nil {
		t.Error("depth 2 passed a limit of 1")
	}
	if _, err := Decode(unhex(t, "81 00"), Limits{MaxDepth: 1}); err != nil {
		t.Errorf("depth 1 under a limit of 1: %v", err)
	}
}

type sample struct {
	Type    string   `cbor:"type"`
	Version int      `cbor:"version"`
	Name    string   `cbor:"name,omitempty"`
	Cost    float64  `cbor:"cost"`
	Tags    []string `cbor:"tags,omitempty"`
	Inner   *sample  `cbor:"inner,omitempty"`
	Input   any      `cbor:"input"`
	skipped int
}

func TestMarshalWritesWhatUpstreamWrites(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"hello as the upstream client frames it", struct {
			Type    string `cbor:"type"`
			Version int    `cbor:"version"`
		}{"hello", 1}, "a2 64 74797065 65 68656c6c6f 67 76657273696f6e 01"},
		{"omitempty drops, order kept", sample{Type: "t", Version: 300, Cost: 0.5},
			"a4 64 74797065 61 74 67 76657273696f6e 19 012c 64 636f7374 fb 3fe0000000000000 65 696e707574 f6"},
		{"whole float as integer", 3.0, "03"},
		{"negative zero stays a float", math.Copysign(0, -1), "fb 8000000000000000"},
		{"negative int", -25, "38 18"},
		{"map keys sorted", map[string]any{"b": 1, "a": true}, "a2 61 61 f5 61 62 01"},
		{"raw JSON", json.RawMessage(`{"x":[1,2.5,null]}`), "a1 61 78 83 01 fb 4004000000000000 f6"},
		{"nil slice", []int(nil), "f6"},
		{"uint32 head", 70000, "1a 00011170"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Marshal(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if want := unhex(t, c.want); !bytes.Equal(got, want) {
				t.Fatalf("got  %x\nwant %x", got, want)
			}
		})
	}
}

func TestMarshalRefuses(t *testing.T) {
	for name, v := range map[string]any{
		"NaN": math.NaN(), "unsafe int": int64(1 << 60), "bytes": []byte{1},
		"bad utf-8": "\xff", "int keys": map[int]int{1: 1}, "channel": make(chan int),
	} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("%s: Marshal accepted it", name)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	in := map[string]any{"a": []any{int64(1), -2.5, "x", nil, true, map[string]any{"k": int64(-7)}}}
	b, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(b, Limits{})
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip: %#v, %v", out, err)
	}
}

func TestFrameReader(t *testing.T) {
	var stream []byte
	stream = AppendFrame(stream, []byte("one"))
	stream = AppendFrame(stream, nil)
	stream = AppendFrame(stream, bytes.Repeat([]byte("z"), 200_000))
	for name, r := range map[string]io.Reader{
		"whole": bytes.NewReader(stream), "one byte at a time": iotest.OneByteReader(bytes.NewReader(stream)),
		"halves": iotest.HalfReader(bytes.NewReader(stream)),
	} {
		fr := NewFrameReader(r, 0)
		var got []int
		for {
			p, err := fr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, len(p))
		}
		if !reflect.DeepEqual(got, []int{3, 0, 200_000}) {
			t.Errorf("%s: frame sizes %v", name, got)
		}
	}
}

func TestFrameReaderErrors(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		limit uint32
		want  error
	}{
		{"over the limit, checked before the payload", "00000081", 128, ErrFrameTooLarge},
		{"end inside the header", "0000", 0, ErrTruncatedFrame},
		{"end inside the payload", "00000005 6162", 0, ErrTruncatedFrame},
	}
	for _, c := range cases {
		_, err := NewFrameReader(bytes.NewReader(unhex(t, c.in)), c.limit).Next()
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}
