package provider

import "context"

// Definition is a provider defined while pi runs (a script's pi.register_provider), as pi's
// registerProvider takes it: either an existing kind (ollama, openai, anthropic) whose
// configuration the script computed, laid over the configured provider of that name, or a kind
// of the script's own, whose Stream makes the calls. Empty fields keep what the configuration
// says.
type Definition struct {
	Name      string
	Kind      string // ollama, openai, anthropic; with Stream, the script's own API name
	BaseURL   string
	APIKey    string // a literal key; never logged, never stored
	APIKeyEnv string // the environment variable that holds the key
	Headers   map[string]string
	// Models replace the configured ones when there are any, as in pi.
	Models []Model
	// ListModels, when set, computes the models (a script asking a server): the provider's
	// listing, and where a model not in Models is looked up.
	ListModels func(ctx context.Context) ([]Model, error)
	// Stream, when set, is the provider itself: a kind of the script's own.
	Stream Provider
}
