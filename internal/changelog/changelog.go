// Package changelog is what changed in this version of pi, embedded at build time for
// /changelog. It holds text only.
package changelog

import _ "embed"

// text is CHANGELOG.md, as it was when pi was built.
//
//go:embed CHANGELOG.md
var text string

// Text is the changelog, newest version first.
func Text() string { return text }
