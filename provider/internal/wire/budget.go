package wire

import (
	"fmt"
	"io"
)

// The bound on a reply stream's size: a server that streams data without ever ending the reply
// (a model repeating itself, a server looping over empty chunks) gets no idle timeout, since
// data keeps coming. Its reply is bounded by its output budget instead: every format pi reads
// spends well under bytesPerToken on one token (an OpenAI chunk with all its fields is a few
// hundred bytes), and budgetSlack covers what is sent once (signatures, usage, framing).
const (
	bytesPerToken       = 4 << 10
	budgetSlack         = 1 << 20
	DefaultOutputTokens = 128000 // for a request that names no budget and no context window
)

// LimitReply returns r cut off with a *StreamError once it has given more bytes than a reply of
// outputTokens tokens can take (0: DefaultOutputTokens). outputTokens is what the adapter asked
// for: the request's max_tokens, else the context window, which no reply can outgrow.
func LimitReply(r io.Reader, server string, outputTokens int) io.Reader {
	if outputTokens <= 0 {
		outputTokens = DefaultOutputTokens
	}
	return &limitedReply{r: r, server: redactURL(server), tokens: outputTokens,
		left: budgetSlack + int64(outputTokens)*bytesPerToken}
}

type limitedReply struct {
	r      io.Reader
	server string
	tokens int
	read   int64
	left   int64
}

func (l *limitedReply) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var probe [1]byte
		if n, err := l.r.Read(probe[:]); n == 0 && err != nil {
			return 0, err // the reply ended right at the bound
		}
		return 0, &StreamError{Server: l.server, Bound: "the output budget",
			Did: fmt.Sprintf("sent %.1f MiB without ending the reply, more than %d output tokens can take", float64(l.read)/(1<<20), l.tokens)}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	l.left -= int64(n)
	return n, err
}
