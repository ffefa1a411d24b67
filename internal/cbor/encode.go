package cbor

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Marshal encodes v: nil, bools, integers, floats, strings, slices, string-keyed maps,
// structs (fields in order, named by their `cbor:"name,omitempty"` tag; untagged fields are
// skipped), pointers, interfaces and json.RawMessage (re-read as a JSON value). A nil pointer,
// interface, slice or map is null unless its field is omitempty; omitempty also drops empty
// strings, false and zero numbers. Strings must be valid UTF-8 and numbers finite.
func Marshal(v any) ([]byte, error) {
	e := encoder{}
	if err := e.value(reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return e.buf, nil
}

type encoder struct{ buf []byte }

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func (e *encoder) head(major byte, n uint64) {
	m := major << 5
	switch {
	case n < 24:
		e.buf = append(e.buf, m|byte(n))
	case n <= math.MaxUint8:
		e.buf = append(e.buf, m|24, byte(n))
	case n <= math.MaxUint16:
		e.buf = binary.BigEndian.AppendUint16(append(e.buf, m|25), uint16(n))
	case n <= math.MaxUint32:
		e.buf = binary.BigEndian.AppendUint32(append(e.buf, m|26), uint32(n))
	default:
		e.buf = binary.BigEndian.AppendUint64(append(e.buf, m|27), n)
	}
}

func (e *encoder) int(n int64) error {
	if n > MaxSafeInt || n < -MaxSafeInt {
		return fmt.Errorf("encoding %d: integer outside ±(2^53−1)", n)
	}
	if n < 0 {
		e.head(1, uint64(-1-n))
	} else {
		e.head(0, uint64(n))
	}
	return nil
}

func (e *encoder) float(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("encoding %v: numbers must be finite", f)
	}
	if f == math.Trunc(f) && math.Abs(f) <= MaxSafeInt && !(f == 0 && math.Signbit(f)) {
		return e.int(int64(f)) // a whole number, as JavaScript writes it
	}
	if f == math.Trunc(f) && math.Abs(f) > MaxSafeInt {
		return fmt.Errorf("encoding %v: integer outside ±(2^53−1)", f)
	}
	e.buf = binary.BigEndian.AppendUint64(append(e.buf, 0xfb), math.Float64bits(f))
	return nil
}

// string appends a text string head and its bytes.
func (e *encoder) string(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("encoding %.40q: text is not valid UTF-8", s)
	}
	e.head(3, uint64(len(s)))
	e.buf = append(e.buf, s...)
	return nil
}

func (e *encoder) value(v reflect.Value) error {
	if !v.IsValid() {
		e.buf = append(e.buf, 0xf6)
		return nil
	}
	if v.Type() == rawMessageType {
		return e.rawJSON(v.Bytes())
	}
	switch v.Kind() {
	case reflect.Bool:
		e.buf = append(e.buf, 0xf4+b2i(v.Bool()))
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return e.int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Uint() > MaxSafeInt {
			return fmt.Errorf("encoding %d: integer outside ±(2^53−1)", v.Uint())
		}
		return e.int(int64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		return e.float(v.Float())
	case reflect.String:
		return e.string(v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, 0xf6)
			return nil
		}
		return e.value(v.Elem())
	case reflect.Slice, reflect.Array:
		return e.list(v)
	case reflect.Map:
		return e.dict(v)
	case reflect.Struct:
		return e.record(v)
	}
	return fmt.Errorf("encoding a %s: not supported", v.Type())
}

func b2i(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (e *encoder) list(v reflect.Value) error {
	if v.Kind() == reflect.Slice && v.IsNil() {
		e.buf = append(e.buf, 0xf6)
		return nil
	}
	if v.Type().Elem().Kind() == reflect.Uint8 {
		return fmt.Errorf("encoding a %s: byte strings are not part of the protocol", v.Type())
	}
	e.head(4, uint64(v.Len()))
	for i := range v.Len() {
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) dict(v reflect.Value) error {
	if v.IsNil() {
		e.buf = append(e.buf, 0xf6)
		return nil
	}
	if v.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("encoding a %s: map keys must be strings", v.Type())
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	e.head(5, uint64(len(keys)))
	for _, k := range keys {
		if err := e.string(k.String()); err != nil {
			return err
		}
		if err := e.value(v.MapIndex(k)); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) record(v reflect.Value) error {
	fields := fieldsOf(v.Type())
	n := 0
	for _, f := range fields {
		if !f.omitEmpty || !v.Field(f.index).IsZero() {
			n++
		}
	}
	e.head(5, uint64(n))
	for _, f := range fields {
		fv := v.Field(f.index)
		if f.omitEmpty && fv.IsZero() {
			continue
		}
		if err := e.string(f.name); err != nil {
			return err
		}
		if err := e.value(fv); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}

// rawJSON encodes a JSON text as the same value in CBOR; empty means null.
func (e *encoder) rawJSON(raw []byte) error {
	if len(raw) == 0 {
		e.buf = append(e.buf, 0xf6)
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("encoding JSON %.40q: %w", raw, err)
	}
	return e.value(reflect.ValueOf(v))
}

type field struct {
	name      string
	index     int
	omitEmpty bool
}

// fieldCache maps a struct type to its tagged fields; it is a cache, not state: every entry
// is a pure function of its key.
var fieldCache sync.Map

func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	for i := range t.NumField() {
		tag, ok := t.Field(i).Tag.Lookup("cbor")
		if !ok || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		out = append(out, field{name: name, index: i, omitEmpty: opts == "omitempty"})
	}
	fieldCache.Store(t, out)
	return out
}
