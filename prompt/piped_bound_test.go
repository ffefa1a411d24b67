package prompt

import (
	"errors"
	"os"
	"testing"

	"pi/internal/safefile"
)

// `cat /dev/zero | pi -p` read standard input until pi ran out of memory.
func TestReadPipedStopsAtItsBound(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		block := make([]byte, 1<<20)
		for {
			if _, err := w.Write(block); err != nil {
				return // the reader gave up and closed its end
			}
		}
	}()
	defer w.Close()
	if _, err := ReadPiped(r); !errors.Is(err, safefile.ErrTooLarge) {
		t.Fatalf("ReadPiped of an endless pipe = %v, want ErrTooLarge", err)
	}
}
