package config

import (
	"fmt"
	"slices"
	"strings"

	"pi/provider/ollama"
)

// OllamaConfig is the [ollama] table: what pi does at start when the Ollama server its model
// needs is installed on this machine but not running. Read only from $PI_HOME/pi.toml: it
// starts a program.
type OllamaConfig struct {
	// Start is "ask" (the default: the terminal UI asks; other modes say what to run),
	// "child" (start `ollama serve` for this run, stopped when pi exits), "detached" (start
	// it and leave it running) or "never" (do not offer).
	Start string `toml:"start"`
}

// Ways to start a server that is not running ([ollama] start).
const (
	OllamaStartAsk      = "ask"
	OllamaStartChild    = "child"
	OllamaStartDetached = "detached"
	OllamaStartNever    = "never"
)

func ollamaStarts() []string {
	return []string{OllamaStartAsk, OllamaStartChild, OllamaStartDetached, OllamaStartNever}
}

func (o OllamaConfig) validate() error {
	if o.Start != "" && !slices.Contains(ollamaStarts(), o.Start) {
		return fmt.Errorf("pi.toml: ollama.start = %q: want %s", o.Start, strings.Join(ollamaStarts(), ", "))
	}
	return nil
}

// StartMode is [ollama] start, "ask" when unset.
func (o OllamaConfig) StartMode() string {
	if o.Start == "" {
		return OllamaStartAsk
	}
	return o.Start
}

// OllamaModel is the Ollama server the model of spec (a --model value; empty: the configured
// model, else discovery) would come from, when its provider speaks Ollama's API, and the
// model's id there ("" for discovery); ok is false for any other provider, a spec that does
// not parse, or a model only scripts define.
func (c *Config) OllamaModel(spec string) (host, id string, ok bool) {
	if spec == "" {
		spec = c.Model
	}
	name := "ollama" // discovery asks the built-in provider
	if spec != "" {
		var err error
		if name, id, _, err = ParseModelSpec(spec); err != nil {
			return "", "", false
		}
		if name == "" {
			if name, id, err = c.findModel(id); err != nil {
				return "", "", false
			}
		}
	}
	pc := c.provider(name)
	if pc == nil || pc.Kind != kindOllama || pc.stream != nil {
		return "", "", false
	}
	if pc.BaseURL != "" {
		return strings.TrimRight(pc.BaseURL, "/"), id, true
	}
	return ollama.Host(c.getenv), id, true
}
