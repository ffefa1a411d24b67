// Package gitwalk walks a directory tree the way git sees it: .git skipped, and whatever the
// .gitignore files (nested, with negations, and those of enclosing directories up to the
// repository root, plus info/exclude) exclude; hidden files included. It also matches the glob
// patterns those files use. The built-in tools (grep, find) and the terminal UI's @file
// completion share it.
//
// It imports nothing of this module and knows nothing of tools, models or terminals.
package gitwalk
