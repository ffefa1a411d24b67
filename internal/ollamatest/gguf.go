package ollamatest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// GGUF value types, as numbered by the GGUF v3 format.
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
)

// ggufAlignment is written as general.alignment and used for every padding.
const ggufAlignment = 32

// kv is one metadata pair. Value is uint32, int32, float32, bool, string,
// []string, []int32 or []float32: the types the llama loader reads.
type kv struct {
	Key   string
	Value any
}

// GGUF tensor types this package writes.
const (
	tensorF32 = 0
	tensorF16 = 1
)

// tensor is one tensor. Dims lists the contiguous dimension first, as GGUF does: a
// [rows][cols] matrix has Dims {cols, rows}. Its values are Data, or, when Fill is set, what
// Fill yields: a model of a real size is written as it is generated, never held in memory.
type tensor struct {
	Name string
	Dims []uint64
	Type uint32 // tensorF32 or tensorF16
	Data []float32
	Fill func(yield func(float32))
}

// count is the number of values Dims hold.
func (t tensor) count() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// size is the tensor's data in bytes, before padding.
func (t tensor) size() uint64 {
	if t.Type == tensorF16 {
		return t.count() * 2
	}
	return t.count() * 4
}

// writeGGUF writes a GGUF v3 file: header, metadata, tensor infos, padding,
// then tensor data with each tensor padded to the alignment.
func writeGGUF(w io.Writer, meta []kv, tensors []tensor) error {
	bw := &ggufWriter{w: bufio.NewWriter(w)}
	bw.raw([]byte("GGUF"))
	bw.u32(3)
	bw.u64(uint64(len(tensors)))
	bw.u64(uint64(len(meta)))
	for _, m := range meta {
		bw.str(m.Key)
		if err := bw.value(m.Value); err != nil {
			return fmt.Errorf("metadata %s: %w", m.Key, err)
		}
	}
	var offset uint64
	for _, t := range tensors {
		if err := t.check(); err != nil {
			return err
		}
		bw.str(t.Name)
		bw.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			bw.u64(d)
		}
		bw.u32(t.Type)
		bw.u64(offset)
		offset += padded(t.size())
	}
	bw.pad()
	for _, t := range tensors {
		if err := bw.tensorData(t); err != nil {
			return err
		}
		bw.pad()
	}
	if bw.err != nil {
		return fmt.Errorf("write gguf: %w", bw.err)
	}
	if err := bw.w.Flush(); err != nil {
		return fmt.Errorf("write gguf: %w", err)
	}
	return nil
}

// check catches a shape that does not match the data before the file is
// written, since the server would only report it as a failed load.
func (t tensor) check() error {
	if t.Type != tensorF32 && t.Type != tensorF16 {
		return fmt.Errorf("tensor %s: unsupported type %d", t.Name, t.Type)
	}
	if t.Fill != nil {
		return nil // tensorData counts what Fill yields
	}
	if n := t.count(); n != uint64(len(t.Data)) {
		return fmt.Errorf("tensor %s: dims %v hold %d values, data has %d", t.Name, t.Dims, n, len(t.Data))
	}
	return nil
}

// tensorData writes t's values in its type, through a buffer of its own: a model of a real
// size has hundreds of millions of them.
func (g *ggufWriter) tensorData(t tensor) error {
	buf := make([]byte, 0, 64<<10)
	var n uint64
	put := func(f float32) {
		if t.Type == tensorF16 {
			buf = binary.LittleEndian.AppendUint16(buf, float16Bits(f))
		} else {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
		if n++; len(buf) >= cap(buf)-4 {
			g.raw(buf)
			buf = buf[:0]
		}
	}
	if t.Fill == nil {
		for _, f := range t.Data {
			put(f)
		}
	} else {
		t.Fill(put)
	}
	g.raw(buf)
	if n != t.count() {
		return fmt.Errorf("tensor %s: dims %v hold %d values, Fill yielded %d", t.Name, t.Dims, t.count(), n)
	}
	return nil
}

func padded(n uint64) uint64 {
	return (n + ggufAlignment - 1) / ggufAlignment * ggufAlignment
}

// ggufWriter keeps the first error and the byte count, so the layout code
// above reads as a plain sequence of fields.
type ggufWriter struct {
	w       *bufio.Writer
	n       uint64
	err     error
	scratch [8]byte // one number's bytes, without an allocation per number
}

func (g *ggufWriter) raw(b []byte) {
	if g.err != nil {
		return
	}
	var n int
	n, g.err = g.w.Write(b)
	g.n += uint64(n)
}

func (g *ggufWriter) u32(v uint32) { g.raw(binary.LittleEndian.AppendUint32(g.scratch[:0], v)) }
func (g *ggufWriter) u64(v uint64) { g.raw(binary.LittleEndian.AppendUint64(g.scratch[:0], v)) }

func (g *ggufWriter) str(s string) {
	g.u64(uint64(len(s)))
	g.raw([]byte(s))
}

func (g *ggufWriter) pad() {
	g.raw(make([]byte, padded(g.n)-g.n))
}

func (g *ggufWriter) value(v any) error {
	switch v := v.(type) {
	case uint32:
		g.u32(ggufUint32)
		g.u32(v)
	case int32:
		g.u32(ggufInt32)
		g.u32(uint32(v))
	case float32:
		g.u32(ggufFloat32)
		g.u32(math.Float32bits(v))
	case bool:
		g.u32(ggufBool)
		g.raw([]byte{boolByte(v)})
	case string:
		g.u32(ggufString)
		g.str(v)
	case []string:
		g.arrayHeader(ggufString, len(v))
		for _, s := range v {
			g.str(s)
		}
	case []int32:
		g.arrayHeader(ggufInt32, len(v))
		for _, x := range v {
			g.u32(uint32(x))
		}
	case []float32:
		g.arrayHeader(ggufFloat32, len(v))
		for _, x := range v {
			g.u32(math.Float32bits(x))
		}
	default:
		return fmt.Errorf("unsupported metadata type %T", v)
	}
	return nil
}

func (g *ggufWriter) arrayHeader(elem uint32, n int) {
	g.u32(ggufArray)
	g.u32(elem)
	g.u64(uint64(n))
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// float16Bits converts f to IEEE half precision, rounding to nearest even, as ggml's
// converter does; too large becomes infinity, too small zero.
func float16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	if b&0x7fffffff > 0x7f800000 {
		return sign | 0x7e00 // NaN
	}
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	if exp >= 0x1f {
		return sign | 0x7c00
	}
	if exp <= 0 { // a subnormal half: the implicit bit becomes explicit and shifts out
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		return sign | uint16(roundShift(mant, uint(14-exp)))
	}
	// A carry out of the mantissa correctly moves into the exponent, up to infinity.
	return sign | uint16(uint32(exp)<<10+roundShift(mant, 13))
}

// roundShift is v >> shift, rounded to nearest, ties to even.
func roundShift(v uint32, shift uint) uint32 {
	q, rem, half := v>>shift, v&(1<<shift-1), uint32(1)<<(shift-1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}
