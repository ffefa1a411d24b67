// Package agent runs conversations with a model: it owns the transcript, the steering and
// follow-up queues, the two nested loops of a run (turns while there are tool calls or pending
// messages; follow-ups when it would stop), tool execution with validation, repair and hooks,
// and the events that tell subscribers what happened, in pi's order and JSON shapes.
//
// It knows nothing of sessions, scripts, configuration or front ends: those take part through
// Hooks and Subscribe. It imports only provider and tools, and holds no package-level state,
// so several agents live side by side in one process.
package agent
