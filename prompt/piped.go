package prompt

import (
	"context"
	"io"
	"os"
	"strings"

	"pi/internal/safefile"
)

// MaxPiped bounds piped standard input: more would not fit any model's window, and
// `pi -p < /dev/zero` must not run pi out of memory.
const MaxPiped = 64 << 20

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
	data, err := safefile.ReadAll(context.Background(), f, "standard input", MaxPiped)
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
