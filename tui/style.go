package tui

// Styles are SGR sequences from the 256-colour palette, which every terminal pi targets
// supports; 24-bit colour would cost more bytes per styled run for no visible gain here.
const (
	sBold      = "\x1b[1m"
	sDim       = "\x1b[2m"
	sItalic    = "\x1b[3m"
	sUnderline = "\x1b[4m"
	sReverse   = "\x1b[7m"
	sStrike    = "\x1b[9m"

	sAccent  = "\x1b[38;5;75m"  // headings, links, prompts
	sMuted   = "\x1b[38;5;244m" // footer, hints, borders
	sCode    = "\x1b[38;5;180m" // inline code
	sGreen   = "\x1b[38;5;71m"
	sRed     = "\x1b[38;5;167m"
	sYellow  = "\x1b[38;5;179m"
	sUserBg  = "\x1b[48;5;236m"
	sThink   = "\x1b[38;5;245m\x1b[3m"
	sKeyword = "\x1b[38;5;170m"
	sString  = "\x1b[38;5;114m"
	sComment = "\x1b[38;5;242m\x1b[3m"
	sNumber  = "\x1b[38;5;173m"
)

// paint wraps s in style and closes it.
func paint(style, s string) string {
	if s == "" {
		return ""
	}
	return style + s + reset
}

// thinkingBorder is the editor border colour for a thinking level: grey when off, warmer as
// the model thinks harder.
func thinkingBorder(level string) string {
	switch level {
	case "minimal":
		return "\x1b[38;5;66m"
	case "low":
		return "\x1b[38;5;67m"
	case "medium":
		return "\x1b[38;5;140m"
	case "high":
		return "\x1b[38;5;175m"
	case "xhigh":
		return "\x1b[38;5;204m"
	}
	return sMuted
}
