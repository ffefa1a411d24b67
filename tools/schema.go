package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Schema is a compiled JSON Schema for a tool's parameters. It is immutable once compiled, so
// one Schema serves calls running in parallel.
//
// Supported keywords: type (names and arrays of names), nullable, properties, required,
// additionalProperties (false or a schema), minProperties, maxProperties, items (one schema),
// minItems, maxItems, uniqueItems, enum, const, minimum, maximum, exclusiveMinimum and
// exclusiveMaximum (numbers, or draft-4 booleans), multipleOf, minLength, maxLength, pattern
// (Go regexp syntax), anyOf, oneOf, allOf, not, and $ref to a JSON pointer in the same document
// ($defs, definitions, "#"). Annotations and other keywords (description, default, format…) are
// ignored.
type Schema struct {
	root *schemaNode
}

// typeSet is a set of JSON types as bits.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tString
	tInteger
)

// typeNames maps a JSON Schema type name to its bit, in the order messages list them.
var typeNames = [...]struct {
	name string
	bit  typeSet
}{
	{"string", tString}, {"integer", tInteger}, {"number", tNumber}, {"boolean", tBoolean},
	{"object", tObject}, {"array", tArray}, {"null", tNull},
}

// schemaNode is one compiled (sub)schema. Pointers and negative numbers mark absent keywords.
type schemaNode struct {
	never bool        // the schema false: nothing is valid
	types typeSet     // 0: any type
	ref   *schemaNode // $ref target, checked in addition to the other keywords

	properties map[string]*schemaNode
	propNames  []string // sorted, for messages
	required   []string
	additional *schemaNode // schema for properties not listed; nil: anything goes
	noExtra    bool        // additionalProperties: false
	minProps   int
	maxProps   int

	items      *schemaNode
	minItems   int
	maxItems   int
	uniqueItem bool

	enum     []any
	constVal any
	hasConst bool

	minimum, maximum, exclMin, exclMax, multipleOf *float64

	minLength, maxLength int
	pattern              *regexp.Regexp

	anyOf, oneOf, allOf []*schemaNode
	not                 *schemaNode
}

// newSchemaNode returns a schemaNode with every count-like keyword absent.
func newSchemaNode() *schemaNode {
	return &schemaNode{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
}

// CompileSchema compiles a tool's parameter schema. Empty input or null accepts any arguments,
// for tools that take none. It fails on invalid JSON, on a keyword of the wrong shape, on an
// unknown type name, on a pattern Go cannot compile and on a $ref it cannot resolve.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return &Schema{root: newSchemaNode()}, nil
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("tool schema is not valid JSON: %w", err)
	}
	if doc == nil {
		doc = true
	}
	c := schemaCompiler{doc: doc, byPointer: map[string]*schemaNode{}}
	root, err := c.compile(doc, "#")
	if err != nil {
		return nil, fmt.Errorf("tool schema: %w", err)
	}
	return &Schema{root: root}, nil
}

// schemaCompiler turns decoded schema JSON into nodes; byPointer memoises $ref targets so recursive
// schemas compile to a cyclic graph instead of looping.
type schemaCompiler struct {
	doc       any
	byPointer map[string]*schemaNode
}

// compile compiles the schema v found at JSON pointer at, which error messages quote.
func (c *schemaCompiler) compile(v any, at string) (*schemaNode, error) {
	n := newSchemaNode()
	switch v := v.(type) {
	case bool:
		n.never = !v
		return n, nil
	case map[string]any:
		return n, c.fill(n, v, at)
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean, got %s", at, describeJSON(v))
}

// fill compiles the keywords of one schema object into n.
func (c *schemaCompiler) fill(n *schemaNode, m map[string]any, at string) error {
	steps := [...]func(*schemaNode, map[string]any, string) error{
		c.compileType, c.compileObject, c.compileArray, c.compileValues, c.compileNumbers,
		c.compileStrings, c.compileCombinators, c.compileRef,
	}
	for _, step := range steps {
		if err := step(n, m, at); err != nil {
			return err
		}
	}
	return nil
}

func (c *schemaCompiler) compileType(n *schemaNode, m map[string]any, at string) error {
	var names []any
	switch t := m["type"].(type) {
	case nil:
	case string:
		names = []any{t}
	case []any:
		names = t
	default:
		return fmt.Errorf("%s/type: expected a type name or an array of them, got %s", at, describeJSON(t))
	}
	for _, name := range names {
		bit, ok := typeBit(name)
		if !ok {
			return fmt.Errorf("%s/type: unknown type %s", at, describeJSON(name))
		}
		n.types |= bit
	}
	if nullable, _ := m["nullable"].(bool); nullable && n.types != 0 {
		n.types |= tNull
	}
	return nil
}

func typeBit(name any) (typeSet, bool) {
	for _, t := range typeNames {
		if t.name == name {
			return t.bit, true
		}
	}
	return 0, false
}

func (c *schemaCompiler) compileObject(n *schemaNode, m map[string]any, at string) error {
	if props, ok := m["properties"]; ok {
		pm, ok := props.(map[string]any)
		if !ok {
			return fmt.Errorf("%s/properties: expected an object, got %s", at, describeJSON(props))
		}
		n.properties = make(map[string]*schemaNode, len(pm))
		for name, sub := range pm {
			child, err := c.compile(sub, at+"/properties/"+escapePointer(name))
			if err != nil {
				return err
			}
			n.properties[name] = child
			n.propNames = append(n.propNames, name)
		}
		sort.Strings(n.propNames)
	}
	req, err := stringList(m, "required", at)
	if err != nil {
		return err
	}
	n.required = req
	switch ap := m["additionalProperties"].(type) {
	case nil:
	case bool:
		n.noExtra = !ap
	default:
		if n.additional, err = c.compile(ap, at+"/additionalProperties"); err != nil {
			return err
		}
	}
	if n.minProps, err = schemaCount(m, "minProperties", at); err != nil {
		return err
	}
	n.maxProps, err = schemaCount(m, "maxProperties", at)
	return err
}

func (c *schemaCompiler) compileArray(n *schemaNode, m map[string]any, at string) error {
	var err error
	if items, ok := m["items"]; ok {
		if _, isList := items.([]any); isList {
			return fmt.Errorf("%s/items: tuple form (an array of schemas) is not supported", at)
		}
		if n.items, err = c.compile(items, at+"/items"); err != nil {
			return err
		}
	}
	if n.minItems, err = schemaCount(m, "minItems", at); err != nil {
		return err
	}
	if n.maxItems, err = schemaCount(m, "maxItems", at); err != nil {
		return err
	}
	n.uniqueItem, _ = m["uniqueItems"].(bool)
	return nil
}

func (c *schemaCompiler) compileValues(n *schemaNode, m map[string]any, at string) error {
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok {
			return fmt.Errorf("%s/enum: expected an array, got %s", at, describeJSON(e))
		}
		n.enum = list
		if list == nil {
			n.enum = []any{}
		}
	}
	n.constVal, n.hasConst = m["const"]
	return nil
}

func (c *schemaCompiler) compileNumbers(n *schemaNode, m map[string]any, at string) error {
	for _, k := range [...]struct {
		key string
		dst **float64
	}{{"minimum", &n.minimum}, {"maximum", &n.maximum}, {"multipleOf", &n.multipleOf}} {
		if err := schemaNumber(m, k.key, at, k.dst); err != nil {
			return err
		}
	}
	if n.multipleOf != nil && *n.multipleOf <= 0 {
		return fmt.Errorf("%s/multipleOf: must be greater than 0, got %v", at, *n.multipleOf)
	}
	if err := exclusiveBound(m, "exclusiveMinimum", at, n.minimum, &n.exclMin); err != nil {
		return err
	}
	return exclusiveBound(m, "exclusiveMaximum", at, n.maximum, &n.exclMax)
}

// exclusiveBound reads exclusiveMinimum/Maximum in either form: a number (draft 6 and later) or a
// boolean that makes the plain bound exclusive (draft 4).
func exclusiveBound(m map[string]any, key, at string, bound *float64, dst **float64) error {
	if b, ok := m[key].(bool); ok {
		if b && bound != nil {
			*dst = bound
		}
		return nil
	}
	return schemaNumber(m, key, at, dst)
}

func (c *schemaCompiler) compileStrings(n *schemaNode, m map[string]any, at string) error {
	var err error
	if n.minLength, err = schemaCount(m, "minLength", at); err != nil {
		return err
	}
	if n.maxLength, err = schemaCount(m, "maxLength", at); err != nil {
		return err
	}
	p, ok := m["pattern"]
	if !ok {
		return nil
	}
	s, ok := p.(string)
	if !ok {
		return fmt.Errorf("%s/pattern: expected a string, got %s", at, describeJSON(p))
	}
	if n.pattern, err = regexp.Compile(s); err != nil {
		return fmt.Errorf("%s/pattern: %q is not a regular expression Go accepts: %w", at, s, err)
	}
	return nil
}

func (c *schemaCompiler) compileCombinators(n *schemaNode, m map[string]any, at string) error {
	for _, k := range [...]struct {
		key string
		dst *[]*schemaNode
	}{{"anyOf", &n.anyOf}, {"oneOf", &n.oneOf}, {"allOf", &n.allOf}} {
		v, ok := m[k.key]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("%s/%s: expected a non-empty array of schemas, got %s", at, k.key, describeJSON(v))
		}
		for i, sub := range list {
			child, err := c.compile(sub, at+"/"+k.key+"/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			*k.dst = append(*k.dst, child)
		}
	}
	if not, ok := m["not"]; ok {
		var err error
		n.not, err = c.compile(not, at+"/not")
		return err
	}
	return nil
}

// compileRef resolves $ref, a JSON pointer into this same document. Targets are memoised before
// they are filled, so a schema that refers to itself becomes a cycle.
func (c *schemaCompiler) compileRef(n *schemaNode, m map[string]any, at string) error {
	r, ok := m["$ref"]
	if !ok {
		return nil
	}
	ref, ok := r.(string)
	if !ok || !strings.HasPrefix(ref, "#") {
		return fmt.Errorf("%s/$ref: only references inside this schema (\"#...\") are supported, got %s", at, describeJSON(r))
	}
	if target, ok := c.byPointer[ref]; ok {
		n.ref = target
		return nil
	}
	sub, err := resolvePointer(c.doc, ref)
	if err != nil {
		return fmt.Errorf("%s/$ref: %w", at, err)
	}
	target := newSchemaNode()
	c.byPointer[ref] = target
	n.ref = target
	switch sub := sub.(type) {
	case bool:
		target.never = !sub
		return nil
	case map[string]any:
		return c.fill(target, sub, ref)
	}
	return fmt.Errorf("%s/$ref: %q points at %s, not a schema", at, ref, describeJSON(sub))
}

// resolvePointer follows a "#/a/b" JSON pointer (RFC 6901) through the decoded document.
func resolvePointer(doc any, ref string) (any, error) {
	p := strings.TrimPrefix(ref, "#")
	if p == "" {
		return doc, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer", ref)
	}
	cur := doc
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("%q: no member %q", ref, tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("%q: no element %q", ref, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%q: cannot step into %s", ref, describeJSON(cur))
		}
	}
	return cur, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// stringList reads a keyword that must be an array of strings.
func stringList(m map[string]any, key, at string) ([]string, error) {
	v, ok := m[key]
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s/%s: expected an array of strings, got %s", at, key, describeJSON(v))
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("%s/%s: expected an array of strings, found %s", at, key, describeJSON(item))
		}
		out = append(out, s)
	}
	return out, nil
}

// schemaCount reads a keyword that must be a non-negative integer; -1 means absent.
func schemaCount(m map[string]any, key, at string) (int, error) {
	v, ok := m[key]
	if !ok {
		return -1, nil
	}
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("%s/%s: expected a non-negative integer, got %s", at, key, describeJSON(v))
	}
	return int(f), nil
}

// schemaNumber reads a keyword that must be a number into *dst.
func schemaNumber(m map[string]any, key, at string, dst **float64) error {
	v, ok := m[key]
	if !ok {
		return nil
	}
	f, ok := v.(float64)
	if !ok {
		return fmt.Errorf("%s/%s: expected a number, got %s", at, key, describeJSON(v))
	}
	*dst = &f
	return nil
}
