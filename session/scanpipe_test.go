package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestScanBlocks holds the scan on all cores to a line-by-line scan of the same file: a file of
// several blocks, with lines longer than a block, damaged and blank lines where blocks end,
// read in short reads, and ending in a torn line.
func TestScanBlocks(t *testing.T) {
	data := blockFile(t)
	want := scanLines(t, data)
	for name, r := range map[string]func() io.Reader{
		"whole reads": func() io.Reader { return bytes.NewReader(data) },
		"short reads": func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
	} {
		got, err := scanFile(context.Background(), r(), scanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.nodes) != len(want.nodes) || !reflect.DeepEqual(got.nodes, want.nodes) {
			t.Fatalf("%s: %d nodes, want %d", name, len(got.nodes), len(want.nodes))
		}
		if !reflect.DeepEqual(got.warnings, want.warnings) || got.end != want.end || got.tornAt != want.tornAt ||
			got.needNL != want.needNL {
			t.Fatalf("%s: warnings %v end %d torn %d\nwant %v end %d torn %d", name, got.warnings, got.end,
				got.tornAt, want.warnings, want.end, want.tornAt)
		}
	}
	if len(want.nodes) < 100 || len(want.warnings) < 4 || want.tornAt < 0 {
		t.Fatalf("the file does not exercise the scan: %d nodes, warnings %v", len(want.nodes), want.warnings)
	}
}

// blockFile writes about 5 MB of entries, some damaged, some longer than a block.
func blockFile(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"0000-blocks","timestamp":"` + ts + `","cwd":"/p"}` + "\n")
	parent := "null"
	for i := 0; b.Len() < 5<<20; i++ {
		size := 100 + (i*7919)%20000
		if i%97 == 50 {
			size = batchBytes + 1000 // longer than a block
		}
		line := fmt.Sprintf(`{"type":"message","id":"%08x","parentId":%s,"timestamp":"%s","message":{"role":"user","content":"%s","timestamp":1}}`,
			i, parent, ts, strings.Repeat("x", size))
		switch {
		case i%41 == 7:
			line = line[:len(line)/2] // cut short
		case i%53 == 9:
			line = strings.Replace(line, "xxx", "x\x00x", 1)
		case i%61 == 3:
			line = "  "
		}
		b.WriteString(line + "\n")
		parent = fmt.Sprintf(`"%08x"`, i)
	}
	b.WriteString(`{"type":"message","id":"ffffffff","parentId":` + parent + `,"timest`) // torn
	return b.Bytes()
}

// scanLines is the scan done one line at a time, for reference.
func scanLines(t *testing.T, data []byte) *scanned {
	lr := newLineReader(bytes.NewReader(data))
	first, _, _, err := lr.next()
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseHeader(first)
	if err != nil {
		t.Fatal(err)
	}
	sc := &scanned{header: h, tornAt: -1, byID: map[string]int{}, skipped: map[string]standIn{},
		unknown: map[Type]*unknownType{}}
	sc.end = lr.off
	for {
		line, off, complete, err := lr.next()
		if err == io.EOF {
			break
		}
		r := sc.classify(line, off)
		sc.add(&r, &lineRef{start: 0, end: len(line), off: off, no: lr.line, complete: complete}, lr.off)
	}
	sc.finish()
	return sc
}
