package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestCIScriptsNameFilesACloneHas fails when a comment in a .ci script points the reader at a
// markdown file (relative to the script, or to the repository) that a clone does not have.
func TestCIScriptsNameFilesACloneHas(t *testing.T) {
	scripts, _ := filepath.Glob(".ci/*")
	ref := regexp.MustCompile(`[\w./-]+\.md\b`)
	for _, script := range scripts {
		if fi, err := os.Stat(script); err != nil || fi.IsDir() {
			continue
		}
		text, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range ref.FindAllString(string(text), -1) {
			if !inRepo(filepath.Join(filepath.Dir(script), name)) && !inRepo(name) {
				t.Errorf("%s names %s, which a clone does not have", script, name)
			}
		}
	}
}

// inRepo reports whether path names a file inside the repository (the test runs at its root).
func inRepo(path string) bool {
	_, err := os.Stat(path)
	return filepath.IsLocal(path) && err == nil
}
