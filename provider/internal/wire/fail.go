package wire

import (
	"context"
	"errors"
	"strings"

	"pi/provider"
)

// Aborted is the error text of a reply cut short by cancellation.
const Aborted = "Request was aborted"

// Fail ends the reply b is building after err: aborted when ctx is done (whatever err says,
// since a closed body surfaces as a read error), otherwise an error carrying err's text with
// every secret replaced, and the server's Retry-After for the retry policy. A *StreamError
// anywhere in err's chain is the whole message: it names the server and what it did.
func Fail(ctx context.Context, b *provider.Builder, err error, secrets ...string) provider.Message {
	if ctx.Err() != nil {
		return b.Fail(provider.StopAborted, Aborted)
	}
	var herr *HTTPError
	if errors.As(err, &herr) {
		b.Message().RetryAfter = herr.RetryAfter
	}
	var serr *StreamError
	if errors.As(err, &serr) { // without the readers' "reading event stream: "
		err = serr
	}
	return b.Fail(provider.StopError, Redact(err.Error(), secrets...))
}

// Redact replaces each non-empty secret in s, so a server echoing a key back in an error
// ("Incorrect API key provided: sk-…") cannot put it into a session file.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}
