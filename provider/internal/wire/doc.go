// Package wire holds the transport pieces the HTTP model adapters share: a tolerant
// Server-Sent Events reader, a newline-delimited JSON reader, a POST helper that turns non-2xx
// answers into errors carrying the status, the server's message and its Retry-After, and Fail,
// which ends a reply the same way in every adapter.
//
// It also bounds every reply, so that no server can hang pi: Watch wraps an adapter's HTTP
// client with a first-byte and an idle timeout (keep-alives are not progress), and LimitReply
// cuts off a stream that never ends at the size its output budget allows. Both fail with a
// *StreamError naming the server and what it did; Fail makes that the reply's whole error.
//
// It imports package provider (never the reverse) and knows no wire format of any one server.
// It never logs: request headers, where API keys live, never leave the http.Request they were
// set on, and Fail removes keys from every error text.
package wire
