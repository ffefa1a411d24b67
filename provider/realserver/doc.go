// Package realserver holds only tests: the three adapters (ollama, openai, anthropic) against a
// real Ollama server running a scripted test model (internal/ollamatest), one per wire format
// the server speaks. They skip, saying how to run them, when PI_OLLAMA_BIN is unset.
//
// It has no code of its own and nothing may import it.
package realserver
