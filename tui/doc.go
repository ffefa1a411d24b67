// Package tui is pi's interactive terminal interface: the inline line-diff renderer, the
// components that draw the transcript (markdown replies, thinking, tool boxes, notices), the
// editor with history, paste markers, kill ring, undo and completion, the footer, terminal
// set-up and restore (through tcell's Tty and input parser), and the App controller that ties
// them together.
//
// It owns the terminal while interactive mode runs and nothing else: it never touches the
// agent's transcript, sessions or tools. It imports only provider (for the message model);
// the root package adapts agent events to App calls and App callbacks to agent calls.
//
// Rendering model. Output is inline on the normal screen, never the alternate screen, so the
// conversation stays in the terminal's scrollback after pi exits. The screen is split into
// committed lines, written once into scrollback and never rendered again, and the live region
// at the bottom (streaming reply, running tools, queue, status, editor, footer), which is
// re-rendered and diffed line by line against what is on screen. A frame is one write wrapped
// in synchronized output (ESC[?2026h … ESC[?2026l); frames are coalesced to at most 60 per
// second. Routine redraws never emit ESC[2J or ESC[3J: lines above the live region cannot be
// reached without clearing, so the renderer never tries to change them.
//
// Content taller than the screen. When the live region would not fit on the screen its top
// lines are spilled: written into scrollback like committed lines and never rendered again,
// and the component that drew them is told (freezer) so that it keeps them stable. The
// markdown view freezes the column widths of a table once any of its lines has spilled: rows
// that arrive later wrap inside the frozen columns instead of widening them, so a streaming
// table taller than the screen never forces a redraw of lines that left the screen.
package tui
