package provider

import "context"

// LoadChecker is an optional capability of a provider: it can tell, before a request nobody is
// waiting for (a warm-up), whether the request would make the server load the model in place
// of another that is loaded.
type LoadChecker interface {
	WouldEvict(ctx context.Context, m Model) (bool, error)
}

// WouldEvict asks p whether a request for m would push another loaded model out; a provider
// that cannot tell says no.
func WouldEvict(ctx context.Context, p Provider, m Model) (bool, error) {
	c, ok := p.(LoadChecker)
	if !ok {
		return false, nil
	}
	return c.WouldEvict(ctx, m)
}

// WouldEvict implements LoadChecker when the wrapped provider does.
func (r *Retrying) WouldEvict(ctx context.Context, m Model) (bool, error) {
	return WouldEvict(ctx, r.Provider, m)
}
