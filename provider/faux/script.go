package faux

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"pi/provider"
)

// scriptFile is the on-disk form of a script: a JSON array of assistant messages in pi's
// message JSON ("role" may be left out), or an object that also sets the streaming pace.
type scriptFile struct {
	ChunkDelayMs int                `json:"chunkDelayMs"`
	ChunkRunes   int                `json:"chunkRunes"`
	Replies      []provider.Message `json:"replies"`
	// Input is what the model takes, e.g. ["text"] for a model without image input.
	Input []string `json:"input"`
}

// LoadScript reads a script file. It is a test aid: `pi --faux-script file.json` runs pi
// against it instead of a model.
func LoadScript(path string) (*Provider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("faux script: %w", err)
	}
	var sf scriptFile
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		err = json.Unmarshal(data, &sf.Replies)
	} else {
		err = json.Unmarshal(data, &sf)
	}
	if err != nil {
		return nil, fmt.Errorf("faux script %s: %w", path, err)
	}
	if len(sf.Replies) == 0 {
		return nil, fmt.Errorf("faux script %s: no replies (want a JSON array of assistant messages, or {\"replies\": [...]})", path)
	}
	p := &Provider{ChunkDelay: time.Duration(sf.ChunkDelayMs) * time.Millisecond, ChunkRunes: sf.ChunkRunes, Input: sf.Input}
	for _, r := range sf.Replies {
		r.Role = provider.RoleAssistant
		if r.StopReason == "" {
			r.StopReason = provider.StopStop
		}
		p.steps = append(p.steps, r)
	}
	return p, nil
}

// FromCommandLine is `pi --faux-script path [--model faux/id]`: the script's provider and the
// model it plays (faux-1 without an id).
func FromCommandLine(path, model string) (provider.Provider, provider.Model, error) {
	if path == "" {
		return nil, provider.Model{}, errors.New("--provider faux needs --faux-script <file.json>")
	}
	p, err := LoadScript(path)
	if err != nil {
		return nil, provider.Model{}, err
	}
	id := strings.TrimPrefix(model, "faux/")
	if id == "" {
		id = "faux-1"
	}
	return p, provider.Model{ID: id, Provider: "faux", API: "faux", ContextWindow: 128000, MaxTokens: 16384,
		Input: p.ModelInput()}, nil
}
