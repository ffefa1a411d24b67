package textcalls

import (
	"encoding/json"
	"strconv"
	"strings"

	"pi/provider"
)

// paramTypes maps each offered tool's parameters to their JSON Schema type, read from the
// tools' schemas the first time an XML shape needs one.
type paramTypes struct {
	tools []provider.ToolDef
	types map[string]map[string]string
}

func (p *paramTypes) typeOf(tool, param string) string {
	if p.types == nil {
		p.types = map[string]map[string]string{}
		for _, t := range p.tools {
			var s struct {
				Properties map[string]struct {
					Type json.RawMessage `json:"type"`
				} `json:"properties"`
			}
			if json.Unmarshal(t.Parameters, &s) != nil {
				continue
			}
			m := map[string]string{}
			for k, v := range s.Properties {
				m[k] = schemaType(v.Type)
			}
			p.types[t.Name] = m
		}
	}
	return p.types[tool][param]
}

// schemaType reads "type": "integer" or ["integer", "null"].
func schemaType(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	_ = json.Unmarshal(raw, &many) // anything else: unknown
	for _, t := range many {
		if t != "null" {
			return t
		}
	}
	return ""
}

// typed gives a raw XML value the schema's type: numbers, booleans, objects and arrays as JSON,
// strings as they are (newlines kept; only the one newline the templates put after the opening
// tag and before the closing one is dropped). A value that does not fit its type stays a
// string, for validation to report.
func typed(raw, typ string) any {
	raw = strings.TrimPrefix(raw, "\n")
	raw = strings.TrimSuffix(raw, "\n")
	t := strings.TrimSpace(raw)
	switch typ {
	case "integer", "number":
		var f float64
		if json.Unmarshal([]byte(t), &f) == nil {
			return f
		}
	case "boolean":
		if b, err := strconv.ParseBool(strings.ToLower(t)); err == nil {
			return b
		}
	case "object", "array", "json":
		if v, err := provider.ParseLenient(t); err == nil {
			return v
		}
	}
	return raw
}
