package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"pi/provider"
)

// Prepare repairs then validates args; it returns the arguments to execute with. Repairs fix
// only what small models get wrong in an unambiguous way (see repair); args itself is never
// modified. On failure the error is *ValidationError and the map is nil.
func (s *Schema) Prepare(args map[string]any) (map[string]any, error) {
	var v any = args
	if args == nil {
		v = map[string]any{}
	}
	r := schemaRepairer{}
	v, _ = r.repair(s.root, v)
	c := schemaChecker{}
	c.check(s.root, v)
	if c.failed > 0 {
		sortProblems(c.problems)
		if omitted := c.failed - len(c.problems); omitted > 0 {
			c.problems = append(c.problems, Problem{Path: "root", Message: fmt.Sprintf("%d more problems not listed", omitted)})
		}
		return nil, &ValidationError{Problems: c.problems}
	}
	out, ok := v.(map[string]any)
	if !ok {
		msg := "expected an object of named arguments, got " + describeJSON(v)
		return nil, &ValidationError{Problems: []Problem{{Path: "root", Message: msg}}}
	}
	return out, nil
}

// schemaRepairer carries the depth and work guards through a repair walk.
type schemaRepairer struct {
	depth int
	steps int
}

// valid reports whether v satisfies n, counting the work against the repair's budget.
func (r *schemaRepairer) valid(n *schemaNode, v any) bool {
	c := schemaChecker{quiet: true, depth: r.depth, steps: r.steps}
	ok := c.matches(n, v)
	r.steps = c.steps
	return ok
}

// repair returns v adjusted toward n, and whether anything changed. Changed objects and arrays
// are copies; v is left as it was. A value that already has an allowed type is only descended
// into, never converted, so valid arguments pass through untouched and without allocation.
func (r *schemaRepairer) repair(n *schemaNode, v any) (any, bool) {
	r.depth++
	r.steps++
	defer func() { r.depth-- }()
	if r.depth > maxSchemaDepth || r.steps > maxSchemaSteps || n.never {
		return v, false
	}
	changed := false
	if n.ref != nil {
		v, changed = r.repair(n.ref, v)
	}
	for _, sub := range n.allOf {
		var ch bool
		v, ch = r.repair(sub, v)
		changed = changed || ch
	}
	if n.types != 0 && !n.types.accepts(jsonKind(v), v) {
		if nv, ok := r.coerce(n, v); ok {
			v, changed = nv, true
		}
	}
	switch val := v.(type) {
	case map[string]any:
		if nv, ch := r.repairObject(n, val); ch {
			v, changed = nv, true
		}
	case []any:
		if n.items != nil {
			if nv, ch := r.repairArray(n.items, val); ch {
				v, changed = nv, true
			}
		}
	}
	for _, alts := range [...][]*schemaNode{n.anyOf, n.oneOf} {
		if nv, ch := r.repairAlternatives(alts, v); ch {
			v, changed = nv, true
		}
	}
	return v, changed
}

// coerce converts a value of the wrong type into one the schema allows: a numeric or boolean
// string into a number or boolean, a string holding JSON into the object or array it holds, a
// number or boolean into its text, and a single value into an array of one.
func (r *schemaRepairer) coerce(n *schemaNode, v any) (any, bool) {
	switch val := v.(type) {
	case string:
		if nv, ok := coerceString(n.types, val); ok {
			return nv, true
		}
	case bool:
		if n.types&tString != 0 {
			return strconv.FormatBool(val), true
		}
	default:
		if f, ok := jsonFloat(v); ok && n.types&tString != 0 {
			return strconv.FormatFloat(f, 'f', -1, 64), true
		}
	}
	if n.types&tArray != 0 && v != nil {
		if n.items == nil {
			return []any{v}, true
		}
		item, _ := r.repair(n.items, v)
		if r.valid(n.items, item) {
			return []any{item}, true
		}
	}
	return nil, false
}

// coerceString reads a string as the number, boolean, object or array the types want.
func coerceString(types typeSet, s string) (any, bool) {
	t := strings.TrimSpace(s)
	if types&(tNumber|tInteger) != 0 {
		var f float64
		if err := json.Unmarshal([]byte(t), &f); err == nil && types.accepts(tNumber, f) {
			return f, true
		}
	}
	if types&tBoolean != 0 {
		switch strings.ToLower(t) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	holdsJSON := strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.HasPrefix(t, "```")
	if types&(tObject|tArray) != 0 && holdsJSON {
		if parsed, err := provider.ParseLenient(t); err == nil && types&jsonKind(parsed)&(tObject|tArray) != 0 {
			return parsed, true
		}
	}
	return nil, false
}

// repairObject repairs each property against its schema, and drops a null sent for a property
// that is not required and does not allow null: models send null to mean "not given".
func (r *schemaRepairer) repairObject(n *schemaNode, m map[string]any) (map[string]any, bool) {
	var out map[string]any
	for k, val := range m {
		sub := n.properties[k]
		if sub == nil {
			sub = n.additional
		}
		if val == nil && r.dropsNull(n, sub, k) {
			if out == nil {
				out = maps.Clone(m)
			}
			delete(out, k)
			continue
		}
		if sub == nil {
			continue
		}
		if nv, ch := r.repair(sub, val); ch {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = nv
		}
	}
	return out, out != nil
}

// dropsNull reports whether a null for property k should be treated as the property being
// absent: it is not required and its schema (or the lack of one) would reject null.
func (r *schemaRepairer) dropsNull(n, sub *schemaNode, k string) bool {
	for _, req := range n.required {
		if req == k {
			return false
		}
	}
	if sub == nil {
		return n.noExtra
	}
	return !r.valid(sub, nil)
}

func (r *schemaRepairer) repairArray(items *schemaNode, a []any) ([]any, bool) {
	var out []any
	for i, item := range a {
		if nv, ch := r.repair(items, item); ch {
			if out == nil {
				out = append([]any(nil), a...)
			}
			out[i] = nv
		}
	}
	return out, out != nil
}

// repairAlternatives handles anyOf/oneOf. A value some alternative already accepts is left
// alone; otherwise a repair is used only when the alternatives whose repair yields a valid value
// all agree on it, since choosing between different results would be a guess.
func (r *schemaRepairer) repairAlternatives(alts []*schemaNode, v any) (any, bool) {
	if len(alts) == 0 {
		return v, false
	}
	for _, alt := range alts {
		if r.valid(alt, v) {
			return v, false
		}
	}
	var found any
	hits := 0
	for _, alt := range alts {
		if nv, ch := r.repair(alt, v); ch && r.valid(alt, nv) && (hits == 0 || !equalJSON(found, nv)) {
			found = nv
			hits++
		}
	}
	if hits != 1 {
		return v, false
	}
	return found, true
}

// FormatValidationError writes the error result the model sees when a tool call's arguments
// are invalid: the tool, each problem with what was expected, and the arguments as received,
// so the model can correct them and call again. err is usually a *ValidationError; any other
// error is shown as one problem.
func FormatValidationError(toolName string, err error, args map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The arguments for the %q tool are invalid:\n", toolName)
	var ve *ValidationError
	switch {
	case errors.As(err, &ve) && len(ve.Problems) > 0:
		b.WriteString(ve.Error())
	case err != nil:
		b.WriteString("  - " + err.Error())
	default:
		b.WriteString("  - (no details)")
	}
	b.WriteString("\n\nArguments received:\n")
	if args == nil {
		args = map[string]any{}
	}
	if data, merr := json.MarshalIndent(args, "", "  "); merr == nil {
		b.Write(data)
	} else {
		fmt.Fprintf(&b, "%v (not representable as JSON: %v)", args, merr)
	}
	b.WriteString("\n\nCorrect the arguments to match the tool's parameters and call it again.")
	return b.String()
}
