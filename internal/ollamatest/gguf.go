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

// tensor is one F32 tensor. Dims lists the contiguous dimension first, as
// GGUF does: a [rows][cols] matrix has Dims {cols, rows}.
type tensor struct {
	Name string
	Dims []uint64
	Data []float32
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
		bw.u32(0) // type 0: F32
		bw.u64(offset)
		offset += padded(uint64(len(t.Data)) * 4)
	}
	bw.pad()
	for _, t := range tensors {
		for _, f := range t.Data {
			bw.u32(math.Float32bits(f))
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
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	if n != uint64(len(t.Data)) {
		return fmt.Errorf("tensor %s: dims %v hold %d values, data has %d", t.Name, t.Dims, n, len(t.Data))
	}
	return nil
}

func padded(n uint64) uint64 {
	return (n + ggufAlignment - 1) / ggufAlignment * ggufAlignment
}

// ggufWriter keeps the first error and the byte count, so the layout code
// above reads as a plain sequence of fields.
type ggufWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (g *ggufWriter) raw(b []byte) {
	if g.err != nil {
		return
	}
	var n int
	n, g.err = g.w.Write(b)
	g.n += uint64(n)
}

func (g *ggufWriter) u32(v uint32) { g.raw(binary.LittleEndian.AppendUint32(nil, v)) }
func (g *ggufWriter) u64(v uint64) { g.raw(binary.LittleEndian.AppendUint64(nil, v)) }

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
