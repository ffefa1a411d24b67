package tui

// Attributes are the UI's own; every colour comes from the App's theme (package theme), which
// the renderers are handed.
const (
	sBold      = "\x1b[1m"
	sDim       = "\x1b[2m"
	sItalic    = "\x1b[3m"
	sUnderline = "\x1b[4m"
	sReverse   = "\x1b[7m"
	sStrike    = "\x1b[9m"
)

// paint wraps s in style and closes it.
func paint(style, s string) string {
	if s == "" {
		return ""
	}
	return style + s + reset
}
