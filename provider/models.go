package provider

import "context"

// ModelLister is implemented by adapters whose server can say which models it serves (Ollama's
// /api/tags, the OpenAI-style /v1/models, Anthropic's /v1/models). Listed models carry what the
// server tells; the configuration fills in the rest.
type ModelLister interface {
	ListModels(ctx context.Context) ([]Model, error)
}
