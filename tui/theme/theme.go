// Package theme owns the colours of the terminal UI: the Theme type (one SGR sequence per
// role), the built-in dark and light themes, theme files (TOML) and how a [ui] theme setting
// is resolved to a Theme, and the terminal's answers that tell a dark background from a
// light one (OSC 11, COLORFGBG).
//
// It knows nothing of what the UI draws: the tui package decides which role colours what.
// A Theme is a value that is never changed once built; switching themes means handing the UI
// another one.
package theme

import "strconv"

// Theme is the colour of each role as an SGR sequence ("" leaves the terminal's own
// colour). Attributes (bold, italic, underline) are the UI's, not the theme's.
type Theme struct {
	Name string

	Accent       string // the prompt marker, the spinner, selections, question borders and titles, list bullets
	Muted        string // footer, hints, status and queue lines, tool arguments, rules, table and quote borders
	Success      string // finished tools, added diff lines
	Error        string // failed tools, errors, removed diff lines
	Warning      string // running tools, warnings, retries
	ThinkingText string // thinking blocks (drawn in italics)
	Heading      string // markdown headings (bold)
	Link         string // markdown links (underlined) and bare URLs
	Code         string // inline code
	CodeFence    string // the ``` lines around code blocks

	SyntaxKeyword string
	SyntaxString  string
	SyntaxNumber  string
	SyntaxComment string // drawn in italics

	Border          string // the editor's border while thinking is off
	ThinkingMinimal string // the editor's border at each thinking level
	ThinkingLow     string
	ThinkingMedium  string
	ThinkingHigh    string
	ThinkingXHigh   string
}

// role names a Theme field as theme files spell it.
type role struct {
	key   string
	field *string
}

// roles lists t's roles in the order docs/usage.md documents them.
func (t *Theme) roles() []role {
	return []role{
		{"accent", &t.Accent}, {"muted", &t.Muted}, {"success", &t.Success}, {"error", &t.Error},
		{"warning", &t.Warning}, {"thinking_text", &t.ThinkingText}, {"heading", &t.Heading},
		{"link", &t.Link}, {"code", &t.Code}, {"code_fence", &t.CodeFence},
		{"syntax_keyword", &t.SyntaxKeyword}, {"syntax_string", &t.SyntaxString},
		{"syntax_number", &t.SyntaxNumber}, {"syntax_comment", &t.SyntaxComment},
		{"border", &t.Border}, {"thinking_minimal", &t.ThinkingMinimal}, {"thinking_low", &t.ThinkingLow},
		{"thinking_medium", &t.ThinkingMedium}, {"thinking_high", &t.ThinkingHigh},
		{"thinking_xhigh", &t.ThinkingXHigh},
	}
}

// Roles returns the role names theme files use, in documentation order.
func Roles() []string {
	var t Theme
	var out []string
	for _, r := range t.roles() {
		out = append(out, r.key)
	}
	return out
}

// Colours returns every SGR sequence t uses, role by role (empty roles left out).
func (t *Theme) Colours() map[string]string {
	out := map[string]string{}
	for _, r := range t.roles() {
		if *r.field != "" {
			out[r.key] = *r.field
		}
	}
	return out
}

// ThinkingBorder is the editor border's colour at a thinking level: the border colour when
// thinking is off, warmer as the model thinks harder.
func (t *Theme) ThinkingBorder(level string) string {
	switch level {
	case "minimal":
		return t.ThinkingMinimal
	case "low":
		return t.ThinkingLow
	case "medium":
		return t.ThinkingMedium
	case "high":
		return t.ThinkingHigh
	case "xhigh", "max":
		return t.ThinkingXHigh
	}
	return t.Border
}

// fg256 is the SGR sequence for colour n of the 256-colour palette.
func fg256(n int) string { return "\x1b[38;5;" + strconv.Itoa(n) + "m" }

// fgRGB is the SGR sequence for a 24-bit colour.
func fgRGB(r, g, b int) string {
	return "\x1b[38;2;" + strconv.Itoa(r) + ";" + strconv.Itoa(g) + ";" + strconv.Itoa(b) + "m"
}

// Dark is the built-in theme for dark backgrounds. Its colours come from the 256-colour
// palette, which every terminal pi targets supports.
func Dark() *Theme {
	return &Theme{Name: "dark",
		Accent: fg256(75), Muted: fg256(244), Success: fg256(71), Error: fg256(167), Warning: fg256(179),
		ThinkingText: fg256(245), Heading: fg256(75), Link: fg256(75), Code: fg256(180), CodeFence: fg256(244),
		SyntaxKeyword: fg256(170), SyntaxString: fg256(114), SyntaxNumber: fg256(173), SyntaxComment: fg256(242),
		Border: fg256(244), ThinkingMinimal: fg256(66), ThinkingLow: fg256(67), ThinkingMedium: fg256(140),
		ThinkingHigh: fg256(175), ThinkingXHigh: fg256(204),
	}
}

// Light is the built-in theme for light backgrounds: darker, more saturated colours that keep
// their contrast on white. It shares no colour with Dark.
func Light() *Theme {
	return &Theme{Name: "light",
		Accent: fg256(25), Muted: fg256(241), Success: fg256(28), Error: fg256(160), Warning: fg256(130),
		ThinkingText: fg256(243), Heading: fg256(25), Link: fg256(25), Code: fg256(94), CodeFence: fg256(241),
		SyntaxKeyword: fg256(90), SyntaxString: fg256(29), SyntaxNumber: fg256(166), SyntaxComment: fg256(102),
		Border: fg256(241), ThinkingMinimal: fg256(60), ThinkingLow: fg256(61), ThinkingMedium: fg256(97),
		ThinkingHigh: fg256(133), ThinkingXHigh: fg256(161),
	}
}

// Builtin returns the built-in theme called name ("dark" or "light").
func Builtin(name string) (*Theme, bool) {
	switch name {
	case "dark":
		return Dark(), true
	case "light":
		return Light(), true
	}
	return nil, false
}
