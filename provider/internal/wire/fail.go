package wire

import (
	"context"
	"errors"

	redaction "pi/internal/secrets"
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

// Redact replaces each secret in s, and any run of six or more of its characters (a prefix
// the server echoes, "Incorrect API key provided: sk-proj-abc***"), so a server echoing a key
// back in an error cannot put it into a session file.
func Redact(s string, secrets ...string) string {
	return redaction.RedactKeys(s, secrets...)
}

// HeaderSecrets are the tokens in a provider's extra headers, redacted as its key is.
func HeaderSecrets(headers map[string]string) []string { return redaction.HeaderSecrets(headers) }
