package session

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"sync"
)

// Scanning on all cores. Checking a line (checkLine, the index's meta) depends on the line
// alone and is most of a scan's work, so the reader hands batches of lines to a worker per
// core, and one goroutine applies the results in file order (ids, links, warnings: the rules
// that depend on the lines before). Memory stays bounded: a few batches are in flight. The
// reader reads blocks straight into the batches; the workers split them into lines.

// A batch is a block of consecutive whole lines, read straight into buf.
type batch struct {
	buf   []byte
	off   int64 // the file offset of buf[0]
	lines []lineRef
	res   []lineResult
	done  chan struct{} // closed when lines and res are filled
}

type lineRef struct {
	start, end int // the line in buf, without its newline
	off        int64
	no         int  // set when the batch is applied
	complete   bool // a newline ended it
}

// A batch is handed on once it holds batchBytes (or more, to end on a newline).
const batchBytes = 256 << 10

// scanEntries reads the lines after the header (rest is what the header's reader read past
// it, at offset off) and indexes them into sc.
func (sc *scanned) scanEntries(ctx context.Context, r io.Reader, rest []byte, off int64, lineNo int, size int64) error {
	workers := runtime.GOMAXPROCS(0)
	if size >= 0 && size < batchBytes {
		workers = 1 // one batch: more workers would only wait
	}
	work, order := make(chan *batch), make(chan *batch, workers)
	free := make(chan *batch, 2*workers+2)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				b.classify(sc)
				close(b.done)
			}
		})
	}
	applied := make(chan struct{})
	go func() {
		defer close(applied)
		for b := range order {
			<-b.done
			lineNo = sc.addBatch(b, lineNo)
			select {
			case free <- b:
			default:
			}
		}
	}()
	left := int64(-1) // what is left to read, and a newline search's margin; -1: unknown
	if size >= 0 {
		left = size - off + 64<<10
	}
	br := blockReader{r: r, carry: rest, off: off, bufSize: bufferFor(left, batchBytes+batchBytes/2)}
	err := br.run(ctx, work, order, free)
	close(work)
	close(order)
	wg.Wait()
	<-applied
	return err
}

// classify splits the batch into lines and checks each.
func (b *batch) classify(sc *scanned) {
	b.lines, b.res = b.lines[:0], b.res[:0]
	for pos := 0; pos < len(b.buf); {
		end, next, complete := len(b.buf), len(b.buf), false
		if j := bytes.IndexByte(b.buf[pos:], '\n'); j >= 0 {
			end, next, complete = pos+j, pos+j+1, true
		}
		b.lines = append(b.lines, lineRef{start: pos, end: end, off: b.off + int64(pos), complete: complete})
		b.res = append(b.res, sc.classify(b.buf[pos:end], b.off+int64(pos)))
		pos = next
	}
}

// addBatch applies a classified batch in file order and returns the last line number.
func (sc *scanned) addBatch(b *batch, lineNo int) int {
	for k := range b.lines {
		l := &b.lines[k]
		lineNo++
		l.no = lineNo
		end := l.off + int64(l.end-l.start)
		if l.complete {
			end++
		}
		sc.add(&b.res[k], l, end)
	}
	return lineNo
}

// blockReader cuts its input into blocks of whole lines; the line a block's end cuts is
// carried into the next block.
type blockReader struct {
	r     io.Reader
	carry []byte
	off   int64 // of the next block
	eof   bool
	// bufSize is a new batch's buffer: smaller than a full batch's for a small file.
	bufSize int
}

// run sends every block to a worker and to the applier.
func (br *blockReader) run(ctx context.Context, work, order chan<- *batch, free <-chan *batch) error {
	for !br.eof {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := newBatch(free, br.bufSize)
		if err := br.fill(b); err != nil {
			return err
		}
		if len(b.buf) > 0 {
			b.done = make(chan struct{})
			work <- b
			order <- b
		}
	}
	return nil
}

// fill reads the next block into b: the carried start of a line, then at least batchBytes
// more, then on to the next newline; what follows the last newline is carried on.
func (br *blockReader) fill(b *batch) error {
	b.off = br.off
	b.buf = append(b.buf[:0], br.carry...)
	scanned := len(b.buf) // bytes already searched for a newline
	for !br.eof {
		if len(b.buf) >= batchBytes {
			if bytes.IndexByte(b.buf[scanned:], '\n') >= 0 {
				break
			}
			scanned = len(b.buf)
		}
		if cap(b.buf)-len(b.buf) < 64<<10 {
			b.buf = append(b.buf, make([]byte, cap(b.buf))...)[:len(b.buf)]
		}
		n, err := br.r.Read(b.buf[len(b.buf):cap(b.buf)])
		b.buf = b.buf[:len(b.buf)+n]
		if err == io.EOF {
			br.eof = true
		} else if err != nil {
			return err
		}
	}
	cut := len(b.buf)
	if !br.eof {
		cut = bytes.LastIndexByte(b.buf, '\n') + 1
	}
	br.carry = append(br.carry[:0], b.buf[cut:]...)
	b.buf = b.buf[:cut]
	br.off += int64(cut)
	return nil
}

func newBatch(free <-chan *batch, size int) *batch {
	select {
	case b := <-free:
		return b
	default:
		return &batch{buf: make([]byte, 0, size)}
	}
}
