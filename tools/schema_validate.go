package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is one way a tool call's arguments break the tool's schema.
type Problem struct {
	Path    string // the offending value: "root", "path", "edits[0].oldText"
	Message string // what was expected and what was received
}

// ValidationError lists every problem found in a tool call's arguments, so the model can fix
// them all in one retry.
type ValidationError struct {
	Problems []Problem
}

// Error gives one "  - path: message" line per problem.
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("  - ")
		b.WriteString(p.Path)
		b.WriteString(": ")
		b.WriteString(p.Message)
	}
	return b.String()
}

const (
	// maxSchemaProblems caps the list so a badly wrong call does not flood a small context window.
	maxSchemaProblems = 20
	// maxSchemaDepth bounds nesting of data and $ref hops together, so a schema that refers to
	// itself without consuming data ends with a problem instead of a stack overflow.
	maxSchemaDepth = 2000
	// maxSchemaSteps bounds the work of one check or repair: alternatives nested in a recursive
	// schema can otherwise take time exponential in the depth of the data the model sent.
	maxSchemaSteps = 200_000
)

// pathStep is one step from the arguments' root to the value being checked: an object key or
// an array index.
type pathStep struct {
	key     string
	index   int
	isIndex bool
}

// pathStack holds the steps to the current value. The first steps live in a fixed array, so a
// walk over ordinary arguments needs no allocation; the string is built only for a problem.
type pathStack struct {
	fixed [12]pathStep
	more  []pathStep
	n     int
}

func (p *pathStack) push(s pathStep) {
	if p.n < len(p.fixed) {
		p.fixed[p.n] = s
	} else {
		p.more = append(p.more[:p.n-len(p.fixed)], s)
	}
	p.n++
}

func (p *pathStack) pop() { p.n-- }

func (p *pathStack) step(i int) pathStep {
	if i < len(p.fixed) {
		return p.fixed[i]
	}
	return p.more[i-len(p.fixed)]
}

// String renders the path as "edits[0].oldText"; the root itself is "root".
func (p *pathStack) String() string {
	if p.n == 0 {
		return "root"
	}
	var b strings.Builder
	for i := range p.n {
		s := p.step(i)
		switch {
		case s.isIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case isPlainKey(s.key):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		default:
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		}
	}
	return b.String()
}

// isPlainKey reports whether a key can be shown as .key in a path rather than quoted.
func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '$') {
			return false
		}
	}
	return true
}

// schemaChecker walks a value against a schema and collects problems. In quiet mode it only counts
// failures and stops at the first, which is what alternatives and repairs need.
type schemaChecker struct {
	problems []Problem
	failed   int
	quiet    bool
	depth    int
	steps    int // work done so far, carried through sub-checkers, against maxSchemaSteps
	path     pathStack
}

// fail records a problem at the current path. The message is built by a function, called only
// when the problem is kept, so quiet checks of alternatives cost no formatting or allocation.
func (c *schemaChecker) fail(message func() string) {
	c.failed++
	if c.quiet || len(c.problems) >= maxSchemaProblems {
		return
	}
	c.problems = append(c.problems, Problem{Path: c.path.String(), Message: message()})
}

// failAt records a problem at a step below the current path, such as a missing property.
func (c *schemaChecker) failAt(step pathStep, message func() string) {
	c.path.push(step)
	c.fail(message)
	c.path.pop()
}

// matches reports whether v is valid against n, without building messages. Kept out of line:
// inlined, its checker would escape to the heap through the caller.
//
//go:noinline
func (c *schemaChecker) matches(n *schemaNode, v any) bool {
	sub := schemaChecker{quiet: true, depth: c.depth, steps: c.steps}
	sub.check(n, v)
	c.steps = sub.steps
	return sub.failed == 0
}

// checkAt checks a value one step below the current path.
func (c *schemaChecker) checkAt(step pathStep, n *schemaNode, v any) {
	c.path.push(step)
	c.check(n, v)
	c.path.pop()
}

// check applies every keyword of n to v. A wrong type stops the checks of that value, as the
// other keywords would only repeat it.
func (c *schemaChecker) check(n *schemaNode, v any) {
	if c.quiet && c.failed > 0 {
		return
	}
	c.depth++
	c.steps++
	defer func() { c.depth-- }()
	if c.depth > maxSchemaDepth {
		c.fail(func() string {
			return fmt.Sprintf("nesting goes deeper than %d levels (or the schema refers to itself endlessly)", maxSchemaDepth)
		})
		return
	}
	if c.steps > maxSchemaSteps {
		c.fail(func() string { return "the schema is too complex to check these arguments in reasonable time" })
		return
	}
	if n.never {
		c.fail(func() string { return fmt.Sprintf("no value is allowed here, got %s", describeJSON(v)) })
		return
	}
	if n.ref != nil {
		c.check(n.ref, v)
	}
	kind := jsonKind(v)
	if n.types != 0 && !n.types.accepts(kind, v) {
		c.fail(func() string { return fmt.Sprintf("expected %s, got %s", n.types, describeJSON(v)) })
		return
	}
	c.checkValue(n, v)
	switch kind {
	case tObject:
		if m, ok := v.(map[string]any); ok {
			c.checkObject(n, m)
		}
	case tArray:
		if a, ok := v.([]any); ok {
			c.checkArray(n, a)
		}
	case tNumber:
		c.checkNumber(n, v)
	case tString:
		c.checkString(n, v.(string))
	}
	c.checkAlternatives(n, v)
}

// checkValue applies enum and const.
func (c *schemaChecker) checkValue(n *schemaNode, v any) {
	if n.hasConst && !equalJSON(n.constVal, v) {
		c.fail(func() string {
			return fmt.Sprintf("expected exactly %s, got %s", compactJSON(n.constVal), describeJSON(v))
		})
	}
	if n.enum == nil {
		return
	}
	for _, e := range n.enum {
		if equalJSON(e, v) {
			return
		}
	}
	c.fail(func() string { return fmt.Sprintf("expected one of %s, got %s", listJSON(n.enum), describeJSON(v)) })
}

// checkObject applies the object keywords; keys iterate in random order, so Prepare sorts the
// problems afterwards.
func (c *schemaChecker) checkObject(n *schemaNode, m map[string]any) {
	for _, name := range n.required {
		if _, ok := m[name]; !ok {
			c.failAt(pathStep{key: name}, func() string {
				return fmt.Sprintf("required property is missing%s", expectedSuffix(n.properties[name]))
			})
		}
	}
	for k, val := range m {
		switch sub := n.properties[k]; {
		case sub != nil:
			c.checkAt(pathStep{key: k}, sub, val)
		case n.additional != nil:
			c.checkAt(pathStep{key: k}, n.additional, val)
		case n.noExtra:
			c.failAt(pathStep{key: k}, func() string { return fmt.Sprintf("unexpected property; %s", allowedProperties(n)) })
		}
	}
	if n.minProps >= 0 && len(m) < n.minProps {
		c.fail(func() string { return fmt.Sprintf("expected at least %d properties, got %d", n.minProps, len(m)) })
	}
	if n.maxProps >= 0 && len(m) > n.maxProps {
		c.fail(func() string { return fmt.Sprintf("expected at most %d properties, got %d", n.maxProps, len(m)) })
	}
}

func (c *schemaChecker) checkArray(n *schemaNode, a []any) {
	if n.items != nil {
		for i, item := range a {
			c.checkAt(pathStep{index: i, isIndex: true}, n.items, item)
		}
	}
	if n.minItems >= 0 && len(a) < n.minItems {
		c.fail(func() string { return fmt.Sprintf("expected at least %d items, got %d", n.minItems, len(a)) })
	}
	if n.maxItems >= 0 && len(a) > n.maxItems {
		c.fail(func() string { return fmt.Sprintf("expected at most %d items, got %d", n.maxItems, len(a)) })
	}
	if !n.uniqueItem {
		return
	}
	for i := range a {
		for j := i + 1; j < len(a); j++ {
			if equalJSON(a[i], a[j]) {
				c.fail(func() string { return fmt.Sprintf("expected unique items, but items %d and %d are equal", i, j) })
				return
			}
		}
	}
}

func (c *schemaChecker) checkNumber(n *schemaNode, v any) {
	f, _ := jsonFloat(v)
	if n.minimum != nil && f < *n.minimum {
		c.fail(func() string { return fmt.Sprintf("expected a number >= %v, got %v", *n.minimum, f) })
	}
	if n.maximum != nil && f > *n.maximum {
		c.fail(func() string { return fmt.Sprintf("expected a number <= %v, got %v", *n.maximum, f) })
	}
	if n.exclMin != nil && f <= *n.exclMin {
		c.fail(func() string { return fmt.Sprintf("expected a number > %v, got %v", *n.exclMin, f) })
	}
	if n.exclMax != nil && f >= *n.exclMax {
		c.fail(func() string { return fmt.Sprintf("expected a number < %v, got %v", *n.exclMax, f) })
	}
	if n.multipleOf != nil {
		q := f / *n.multipleOf
		if math.IsInf(q, 0) || math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
			c.fail(func() string { return fmt.Sprintf("expected a multiple of %v, got %v", *n.multipleOf, f) })
		}
	}
}

// checkString applies the string keywords; lengths count characters (code points), as JSON
// Schema defines them, not bytes.
func (c *schemaChecker) checkString(n *schemaNode, s string) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		length := utf8.RuneCountInString(s)
		if n.minLength >= 0 && length < n.minLength {
			c.fail(func() string {
				return fmt.Sprintf("expected a string of at least %d characters, got %d", n.minLength, length)
			})
		}
		if n.maxLength >= 0 && length > n.maxLength {
			c.fail(func() string {
				return fmt.Sprintf("expected a string of at most %d characters, got %d", n.maxLength, length)
			})
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		c.fail(func() string {
			return fmt.Sprintf("expected a string matching the pattern %q, got %s", n.pattern.String(), describeJSON(s))
		})
	}
}

// checkAlternatives applies allOf, anyOf, oneOf and not.
func (c *schemaChecker) checkAlternatives(n *schemaNode, v any) {
	for _, sub := range n.allOf {
		c.check(sub, v)
	}
	if len(n.anyOf) > 0 {
		matched := false
		for _, sub := range n.anyOf {
			if c.matches(sub, v) {
				matched = true
				break
			}
		}
		if !matched {
			c.failAlternatives(n.anyOf, v)
		}
	}
	if len(n.oneOf) > 0 {
		hits, first, second := 0, 0, 0
		for i, sub := range n.oneOf {
			if c.matches(sub, v) {
				hits++
				first, second = second, i+1
			}
		}
		switch {
		case hits == 0:
			c.failAlternatives(n.oneOf, v)
		case hits > 1:
			c.fail(func() string {
				return fmt.Sprintf("expected exactly one of %d alternatives to match, but %d match "+
					"(the last two are %d and %d)", len(n.oneOf), hits, first, second)
			})
		}
	}
	if n.not != nil && c.matches(n.not, v) {
		c.fail(func() string { return fmt.Sprintf("got %s, which the schema excludes", describeJSON(v)) })
	}
}

// failAlternatives reports a value that fits none of the alternatives, with the first problems
// each alternative found, so the model sees every shape it could have sent.
func (c *schemaChecker) failAlternatives(alts []*schemaNode, v any) {
	if c.quiet {
		c.failed++
		return
	}
	here := c.path.String()
	var b strings.Builder
	for i, alt := range alts {
		sub := schemaChecker{depth: c.depth, steps: c.steps, path: c.path}
		sub.check(alt, v)
		c.steps = sub.steps
		fmt.Fprintf(&b, "; (%d) ", i+1)
		for j, p := range sub.problems[:min(2, len(sub.problems))] {
			if j > 0 {
				b.WriteString(", ")
			}
			if p.Path != here {
				b.WriteString(p.Path + ": ")
			}
			b.WriteString(p.Message)
		}
	}
	c.fail(func() string {
		return fmt.Sprintf("expected a value matching one of %d alternatives, none matched%s", len(alts), b.String())
	})
}

// expectedSuffix says what a missing property should have been, when its schema says.
func expectedSuffix(n *schemaNode) string {
	if n == nil || n.types == 0 {
		return ""
	}
	return " (expected " + n.types.String() + ")"
}

func allowedProperties(n *schemaNode) string {
	if len(n.propNames) == 0 {
		return "no properties are allowed here"
	}
	return "allowed properties are " + strings.Join(n.propNames, ", ")
}

// accepts reports whether a value of the given kind satisfies the type set; integer needs a
// whole number.
func (t typeSet) accepts(kind typeSet, v any) bool {
	if t&kind != 0 {
		return true
	}
	if kind == tNumber && t&tInteger != 0 {
		f, _ := jsonFloat(v)
		return f == math.Trunc(f) && !math.IsInf(f, 0)
	}
	return false
}

// String lists the types as "string or null".
func (t typeSet) String() string {
	var names []string
	for _, tn := range typeNames {
		if t&tn.bit != 0 {
			names = append(names, tn.name)
		}
	}
	return strings.Join(names, " or ")
}

// jsonKind gives the JSON type bit of a decoded value; numbers are tNumber whatever their value.
// Values JSON cannot produce (set by Go code) get no bit and so match no type.
func jsonKind(v any) typeSet {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case map[string]any:
		return tObject
	case []any:
		return tArray
	}
	if _, ok := jsonFloat(v); ok {
		return tNumber
	}
	return 0
}

// jsonFloat reads any Go number type as a float64.
func jsonFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// equalJSON compares decoded JSON values structurally; numbers compare by value.
func equalJSON(a, b any) bool {
	if fa, ok := jsonFloat(a); ok {
		fb, ok := jsonFloat(b)
		return ok && fa == fb
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !equalJSON(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// describeJSON names a value's type and shows a short preview, for "got …" in messages.
func describeJSON(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case string:
		const limit = 60
		if utf8.RuneCountInString(v) > limit {
			return "string " + strconv.Quote(string([]rune(v)[:limit])) + "…"
		}
		return "string " + strconv.Quote(v)
	case map[string]any:
		return "an object"
	case []any:
		return fmt.Sprintf("an array of %d items", len(v))
	}
	if f, ok := jsonFloat(v); ok {
		return "number " + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprintf("a Go value of type %T", v)
}

// compactJSON renders a schema constant for messages.
func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

func listJSON(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = compactJSON(v)
	}
	return strings.Join(parts, ", ")
}

// sortProblems orders problems by path (keeping each path's problems in the order found), so
// the same call always gets the same message although maps iterate in random order.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Path < ps[j].Path })
}
