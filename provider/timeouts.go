package provider

import "time"

// Defaults for StreamTimeouts' zero fields.
const (
	DefaultFirstByteTimeout = 300 * time.Second // generous: a slow CPU model may be loading
	DefaultIdleTimeout      = 120 * time.Second
)

// StreamTimeouts bound how long a model server may keep a reply waiting. The HTTP adapters apply
// them to every request they send; a reply that runs into one fails with a transient error, so
// Retrying sends it again. Zero fields mean the defaults.
type StreamTimeouts struct {
	// FirstByte runs from sending the request to the first byte of the reply's data. The
	// response headers alone do not end it: some servers send them at once and only then load
	// the model or read the prompt, which on a slow machine takes minutes.
	FirstByte time.Duration
	// Idle is the longest wait between bytes of data once the data has started. Keep-alives
	// (SSE comment lines such as ": ping", blank lines) are not data.
	Idle time.Duration
}

// WithDefaults returns t with its zero fields set to the defaults.
func (t StreamTimeouts) WithDefaults() StreamTimeouts {
	if t.FirstByte <= 0 {
		t.FirstByte = DefaultFirstByteTimeout
	}
	if t.Idle <= 0 {
		t.Idle = DefaultIdleTimeout
	}
	return t
}
