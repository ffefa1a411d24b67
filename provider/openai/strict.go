package openai

import (
	"encoding/json"
	"strings"

	"pi/provider"
)

// Constrained sampling: OpenAI's strict tools make the server decode a call's arguments to the
// tool's schema, so a model cannot produce malformed ones; text answers stay free. It is on by
// default for api.openai.com, which documents it; Model.ConstrainedSampling = true asks any
// OpenAI-compatible server for it (vLLM and others accept the field), false never.
//
// llama.cpp's server is not sent anything: with tools it already decodes calls through a lazy
// grammar built from their schemas, and it refuses a request that adds its own grammar
// ("Cannot use custom grammar constraints with tools"); its json_schema and response_format
// would constrain the whole reply, which must stay free to be text.

func (p *Provider) strictTools(m *provider.Model) bool {
	if m.ConstrainedSampling != nil {
		return *m.ConstrainedSampling
	}
	return strings.Contains(p.cfg.BaseURL, "api.openai.com")
}

// strictSchema rewrites a tool's JSON Schema into the form strict mode accepts: every object
// closed (additionalProperties false) and listing all its properties as required, the ones that
// were optional made nullable. ok is false for a schema strict mode cannot express (an object
// without fixed properties, combinators); the tool is then sent as it is. The arguments are
// still validated against the original schema, which drops the nulls standing for "not given".
func strictSchema(raw json.RawMessage) (json.RawMessage, bool) {
	var schema map[string]any
	if json.Unmarshal(raw, &schema) != nil {
		return nil, false
	}
	if !strictObject(schema) {
		return nil, false
	}
	out, err := json.Marshal(schema)
	return out, err == nil
}

func strictNode(n map[string]any) bool {
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "$ref", "patternProperties", "if"} {
		if _, ok := n[k]; ok {
			return false
		}
	}
	switch n["type"] {
	case "object":
		return strictObject(n)
	case "array":
		if items, ok := n["items"].(map[string]any); ok {
			return strictNode(items)
		}
	}
	return true
}

func strictObject(n map[string]any) bool {
	props, ok := n["properties"].(map[string]any)
	if !ok || n["type"] != "object" {
		return false
	}
	if extra, ok := n["additionalProperties"]; ok && extra != false {
		return false
	}
	required := map[string]bool{}
	if list, ok := n["required"].([]any); ok {
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	all := make([]any, 0, len(props))
	for name, p := range props {
		sub, ok := p.(map[string]any)
		if !ok || !strictNode(sub) {
			return false
		}
		if !required[name] && !nullable(sub) {
			return false
		}
		all = append(all, name)
	}
	sortNames(all)
	n["required"], n["additionalProperties"] = all, false
	return true
}

// nullable lets an optional property be null, strict mode's way of leaving it out.
func nullable(n map[string]any) bool {
	switch t := n["type"].(type) {
	case string:
		n["type"] = []any{t, "null"}
		return true
	case []any:
		for _, x := range t {
			if x == "null" {
				return true
			}
		}
		n["type"] = append(t, "null")
		return true
	}
	return false
}

func sortNames(names []any) {
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j].(string) < names[j-1].(string); j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
}
