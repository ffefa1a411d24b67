// Package wire holds the transport pieces the HTTP model adapters share: a tolerant
// Server-Sent Events reader, a newline-delimited JSON reader, and a POST helper that turns
// non-2xx answers into errors carrying the status, the server's message and its Retry-After.
//
// It knows nothing of messages or events (that is the adapters' job) and never logs: request
// headers, where API keys live, never leave the http.Request they were set on.
package wire
