package provider

import (
	"context"
	"net/http"
)

// RequestHooks let a caller see and change what goes over the wire: BeforeRequest gets the
// JSON body a provider is about to send and returns the body to send (pi's
// before_provider_request), AfterResponse gets the status and headers of the answer (pi's
// after_provider_response). Either may be nil. The HTTP providers honour them.
type RequestHooks struct {
	BeforeRequest func(ctx context.Context, body []byte) []byte
	AfterResponse func(ctx context.Context, status int, header http.Header)
}

type hooksKey struct{}

// WithRequestHooks returns ctx carrying h for the provider calls made with it.
func WithRequestHooks(ctx context.Context, h RequestHooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// HooksFrom returns the hooks ctx carries, or none.
func HooksFrom(ctx context.Context) RequestHooks {
	h, _ := ctx.Value(hooksKey{}).(RequestHooks)
	return h
}
