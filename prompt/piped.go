package prompt

import (
	"io"
	"os"
	"strings"
)

// ReadPiped reads standard input when it is not a terminal (pi -p with piped input); a
// terminal, or a reader that is no file, gives "".
func ReadPiped(stdin io.Reader) (string, error) {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return "", nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 {
		return "", nil
	}
	data, err := io.ReadAll(f)
	return strings.TrimRight(string(data), "\n"), err
}

// MergePiped puts piped input in front of the first prompt (a prompt of its own when there
// is none), as pi does.
func MergePiped(piped string, messages []string) []string {
	if len(messages) == 0 {
		return []string{piped}
	}
	out := append([]string(nil), messages...)
	out[0] = piped + "\n\n" + out[0]
	return out
}
