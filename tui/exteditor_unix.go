//go:build unix

package tui

// exteditor_unix.go is Ctrl+G: the editor's text goes to $VISUAL (else $EDITOR, else vi) in a
// temporary file, and what the user saved comes back into the editor. The terminal is handed
// over as for Ctrl+Z, and taken back after.

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// editExternally runs the user's editor on the editor's text; the error is a terminal that
// could not be taken back after it.
func (t *terminal) editExternally() error {
	target := t.app.externalEditor()
	t.app.mu.Lock()
	text := target.RawText() // as typed: paste markers stay markers
	t.app.mu.Unlock()
	t.handOver()
	edited, err := runEditor(text)
	if err := t.takeBack(); err != nil {
		return fmt.Errorf("terminal: taking the keyboard back after the external editor: %w", err)
	}
	if err != nil {
		t.app.Notify(LevelError, err.Error())
		return nil
	}
	t.app.setEditorTextOf(target, edited)
	return nil
}

// runEditor edits text in the user's editor, which gets the terminal as it is (it is not put
// in a process group of its own: it must stay in the foreground).
func runEditor(text string) (string, error) {
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", "pi-editor-*.md")
	if err != nil {
		return "", fmt.Errorf("external editor: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("external editor: %w", err)
	}
	// Through the shell, so that EDITOR="code --wait" works as it does for git.
	cmd := exec.Command("sh", "-c", editor+` "$1"`, "sh", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("external editor %q: %w; the text stays as it was", editor, err)
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return "", fmt.Errorf("external editor: %w", err)
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}
