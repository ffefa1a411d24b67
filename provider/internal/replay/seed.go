package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// SeedBodies adds the bodies of the recorded responses matching pattern to a fuzz corpus.
func SeedBodies(f *testing.F, pattern string) {
	f.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures match %s", pattern)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
			data = data[i+2:]
		}
		f.Add(data)
	}
}
