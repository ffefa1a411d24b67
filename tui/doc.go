// Package tui is pi's interactive terminal interface: the inline line-diff renderer, the
// components that draw the transcript (markdown replies, thinking, tool boxes, notices), the
// editor with history, paste markers, kill ring, undo and completion, questions (Select,
// Confirm, Input), the footer, terminal set-up and restore (through tcell's Tty and input
// parser), and the App controller that ties them together.
//
// It owns the terminal while interactive mode runs and nothing else: it never touches the
// agent's transcript, sessions or tools, and never runs commands (the clipboard is read by a
// function it is given). It imports only provider (for the message model), images (to fit
// pasted pictures) and its own theme package; the root package adapts agent events to App
// calls and App callbacks to agent calls (interactive.go).
//
// Colours. Every colour comes from the App's theme (package theme), which the components are
// handed when they are made and again on App.SetTheme; caches of styled lines (markdown,
// thinking, the footer, the status line) are dropped when it changes. With the "auto" setting
// Run asks the terminal for its background (OSC 11, then DA1 so that a terminal that does not
// know OSC 11 answers at once) and waits at most 150 ms; the answers are taken from the input
// the reader reads, and every other byte (keys typed meanwhile) goes on to the key parser.
//
// Rendering model. Output is inline on the normal screen, never the alternate screen, so the
// conversation stays in the terminal's scrollback after pi exits. The screen is split into
// committed lines, written once into scrollback and never rendered again, and the live region
// at the bottom (streaming reply, running tools, queue, status, editor, footer), which is
// re-rendered and diffed line by line against what is on screen: unchanged lines are skipped,
// a line that only grew is continued where it ended, and lines inserted into or removed from
// the middle move the unchanged tail with IL/DL instead of rewriting it. A frame is one write
// wrapped in synchronized output (ESC[?2026h … ESC[?2026l); frames are coalesced to at most
// 60 per second. The renderer never writes ESC[2J or ESC[3J: lines above the live region
// cannot be reached without clearing, so it never tries to change them.
//
// Content taller than the screen. When the live region would not fit on the screen its top
// lines are spilled: written into scrollback like committed lines and never rendered again,
// and the component that drew them is told (freezer) so that it keeps them stable. The
// markdown view freezes the column widths of a table once any of its lines has spilled: rows
// that arrive later wrap inside the frozen columns instead of widening them, so a streaming
// table taller than the screen never forces a redraw of lines that left the screen, and every
// row reaches the scrollback exactly once. (A paragraph whose emphasis closes after its first
// lines spilled can still reflow below them; it costs at most a line that looks different.)
//
// Resize. The live region is drawn again at the new size, starting where the terminal's
// reflow has put its top; rows the terminal pushed above the screen (a shorter window) count
// as spilled. Scrollback is left as the terminal reflowed it. Entries already committed are
// not re-laid out, and Ctrl+O / Ctrl+T only change entries still in the live region.
//
// Widths are measured with go-runewidth over grapheme clusters, escape sequences count zero,
// and no line the renderer writes is wider than the screen (the last live line leaves the
// last column free, so the cursor never waits to wrap where ESC[K would eat a character).
package tui
