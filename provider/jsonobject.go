package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// ObjectWriter builds one JSON object with its fields in a fixed order: pi's files and events
// list fields in the order its code builds them, and writing them the same way keeps a file
// written here comparable line by line with one written by pi. The first error sticks.
type ObjectWriter struct {
	buf bytes.Buffer
	err error
}

// NewObjectWriter starts an empty object.
func NewObjectWriter() *ObjectWriter {
	w := &ObjectWriter{}
	w.buf.WriteByte('{')
	return w
}

func (w *ObjectWriter) key(name string) {
	if w.buf.Len() > 1 {
		w.buf.WriteByte(',')
	}
	k, _ := json.Marshal(name) // a string always marshals
	w.buf.Write(k)
	w.buf.WriteByte(':')
}

// Field writes name with v encoded as JSON.
func (w *ObjectWriter) Field(name string, v any) {
	if w.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		w.err = fmt.Errorf("field %q: %w", name, err)
		return
	}
	w.key(name)
	w.buf.Write(data)
}

// Raw writes name with pre-encoded JSON; nil leaves the field out.
func (w *ObjectWriter) Raw(name string, v json.RawMessage) {
	if w.err != nil || v == nil {
		return
	}
	w.key(name)
	w.buf.Write(v)
}

// Extra writes pre-encoded fields in sorted key order, for fields kept from a foreign writer.
func (w *ObjectWriter) Extra(extra map[string]json.RawMessage) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.Raw(k, extra[k])
	}
}

// Fail records err as the writer's error unless one is recorded already.
func (w *ObjectWriter) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Err is the first error met so far.
func (w *ObjectWriter) Err() error { return w.err }

// Close ends the object and returns it, or the first error.
func (w *ObjectWriter) Close() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes(), nil
}
