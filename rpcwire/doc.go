// Package rpcwire owns the JSON shapes of pi's RPC protocol: the commands, the response
// envelope, the data of each response and the events a client reads. RPC mode writes them,
// the server's bridge carries them and pi attach reads them, so each shape is written once.
// Field names, key order and omitted fields are pi's wire format and must not drift: a test
// re-encodes recorded responses byte for byte.
//
// It imports provider and session for the message, model and session-entry shapes it carries,
// and nothing else of pi's; it holds no behaviour beyond encoding.
package rpcwire
