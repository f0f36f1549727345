// Package schemacheck validates JSON values against JSON Schemas (draft
// 2020-12) of the subset of keywords the project's published schemas use,
// and says why a value is invalid in the words of
// github.com/santhosh-tekuri/jsonschema/v5, the validator the schemas are
// checked against in tests.
//
// It exists so that a binary that validates documents does not link that
// validator, which compiles the meta-schemas of five drafts when its
// package is initialised, whatever the command run. Package schema's tests
// hold the two to the same verdicts and problems.
//
// A schema that uses a keyword outside the subset is refused by [Compile]:
// a keyword is never ignored silently. Annotations (title, description,
// $comment, examples, default, deprecated, readOnly, writeOnly) and format
// (an annotation in draft 2020-12) are accepted and not checked.
package schemacheck

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is one reason a value is invalid: where (a JSON Pointer into the
// value, its tokens escaped as jsonschema/v5 escapes them) and what.
type Problem struct {
	Pointer string
	Message string
}

// Set is a compiled set of schemas that may refer to each other.
type Set struct {
	docs  map[string]any     // by absolute URL (no fragment)
	nodes map[string]*schema // by location: URL "#" JSON Pointer
}

// schema is one compiled schema object (or boolean schema).
type schema struct {
	loc    string
	always *bool // a boolean schema

	types    []string
	constant []any // one value when present
	enum     []any
	enumErr  string
	required []string

	properties     map[string]*schema
	propNames      []string // sorted
	patternProps   []patternProp
	additional     *schema
	additionalBool *bool
	propertyNames  *schema
	items          *schema
	minItems       int
	maxItems       int
	minLength      int
	maxLength      int
	pattern        *regexp.Regexp
	minimum        *big.Rat
	maximum        *big.Rat
	exclMinimum    *big.Rat
	exclMaximum    *big.Rat

	ref   *schema
	refTo string
	not   *schema
	allOf []*schema
	anyOf []*schema
	oneOf []*schema
	ifS   *schema
	thenS *schema
	elseS *schema
}

type patternProp struct {
	re *regexp.Regexp
	s  *schema
}

// annotation reports the keywords that assert nothing.
func annotation(k string) bool {
	switch k {
	case "$schema", "$id", "$comment", "$defs", "title", "description",
		"examples", "default", "deprecated", "readOnly", "writeOnly", "format":
		return true
	}
	return false
}

// Compile compiles the schema documents of docs (keyed by the absolute URL
// each is known by, its $id) and every schema they refer to.
func Compile(docs map[string][]byte) (*Set, error) {
	s := &Set{docs: map[string]any{}, nodes: map[string]*schema{}}
	for u, b := range docs {
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("schemacheck: %s: %w", u, err)
		}
		s.docs[u] = v
	}
	urls := make([]string, 0, len(docs))
	for u := range docs {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		if _, err := s.compileLoc(u + "#"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Validate validates v (a value as encoding/json decodes it with
// UseNumber) against the schema at url and returns the problems, in the
// order jsonschema/v5 finds them where that order is defined (members of
// an object are taken in sorted order where its order depends on a map's).
func (s *Set) Validate(url string, v any) []Problem {
	n, ok := s.nodes[url+"#"]
	if !ok {
		return []Problem{{Message: "schemacheck: no schema " + url}}
	}
	var out []Problem
	n.validate(v, "", func(p Problem) { out = append(out, p) })
	return out
}

// compileLoc compiles the schema at loc (URL "#" JSON Pointer), once.
func (s *Set) compileLoc(loc string) (*schema, error) {
	if n, ok := s.nodes[loc]; ok {
		return n, nil
	}
	u, frag, _ := strings.Cut(loc, "#")
	doc, ok := s.docs[u]
	if !ok {
		return nil, fmt.Errorf("schemacheck: %s: no such document", loc)
	}
	v := doc
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			found := false
			switch x := v.(type) {
			case map[string]any:
				v, found = x[tok]
			case []any:
				if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
					v, found = x[i], true
				}
			}
			if !found {
				return nil, fmt.Errorf("schemacheck: %s: no such schema", loc)
			}
		}
	}
	n := &schema{loc: loc}
	s.nodes[loc] = n
	return n, s.fill(n, u, frag, v)
}

// sub compiles the subschema at the pointer frag+"/"+path of document u.
func (s *Set) sub(u, frag string, path ...string) (*schema, error) {
	for _, p := range path {
		frag += "/" + strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return s.compileLoc(u + "#" + frag)
}

func (s *Set) fill(n *schema, u, frag string, v any) error {
	if b, ok := v.(bool); ok {
		n.always = &b
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("schemacheck: %s: a schema must be an object or a boolean", n.loc)
	}
	bad := func(k string) error { return fmt.Errorf("schemacheck: %s: keyword %q: unsupported value", n.loc, k) }
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var err error
	for _, k := range keys {
		val := m[k]
		switch k {
		case "type":
			switch t := val.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, x := range t {
					s, ok := x.(string)
					if !ok {
						return bad(k)
					}
					n.types = append(n.types, s)
				}
			default:
				return bad(k)
			}
		case "const":
			n.constant = []any{val}
		case "enum":
			arr, ok := val.([]any)
			if !ok || len(arr) == 0 {
				return bad(k)
			}
			n.enum = arr
			n.enumErr = enumError(arr)
		case "required":
			arr, ok := val.([]any)
			if !ok {
				return bad(k)
			}
			for _, x := range arr {
				s, ok := x.(string)
				if !ok {
					return bad(k)
				}
				n.required = append(n.required, s)
			}
		case "properties", "patternProperties":
			pm, ok := val.(map[string]any)
			if !ok {
				return bad(k)
			}
			names := make([]string, 0, len(pm))
			for p := range pm {
				names = append(names, p)
			}
			sort.Strings(names)
			for _, p := range names {
				c, err := s.sub(u, frag, k, p)
				if err != nil {
					return err
				}
				if k == "properties" {
					if n.properties == nil {
						n.properties = map[string]*schema{}
					}
					n.properties[p] = c
					n.propNames = append(n.propNames, p)
					continue
				}
				re, err := regexp.Compile(p)
				if err != nil {
					return bad(k)
				}
				n.patternProps = append(n.patternProps, patternProp{re, c})
			}
		case "additionalProperties":
			if b, ok := val.(bool); ok {
				n.additionalBool = &b
			} else if n.additional, err = s.sub(u, frag, k); err != nil {
				return err
			}
		case "propertyNames", "items", "not", "if", "then", "else":
			if _, isArr := val.([]any); isArr && k == "items" {
				return bad(k) // the tuple form of earlier drafts: prefixItems in 2020-12
			}
			c, err := s.sub(u, frag, k)
			if err != nil {
				return err
			}
			switch k {
			case "propertyNames":
				n.propertyNames = c
			case "items":
				n.items = c
			case "not":
				n.not = c
			case "if":
				n.ifS = c
			case "then":
				n.thenS = c
			case "else":
				n.elseS = c
			}
		case "allOf", "anyOf", "oneOf":
			arr, ok := val.([]any)
			if !ok || len(arr) == 0 {
				return bad(k)
			}
			var list []*schema
			for i := range arr {
				c, err := s.sub(u, frag, k, strconv.Itoa(i))
				if err != nil {
					return err
				}
				list = append(list, c)
			}
			switch k {
			case "allOf":
				n.allOf = list
			case "anyOf":
				n.anyOf = list
			case "oneOf":
				n.oneOf = list
			}
		case "minItems", "maxItems", "minLength", "maxLength":
			num, ok := val.(json.Number)
			i, err := num.Int64()
			if !ok || err != nil || i < 0 {
				return bad(k)
			}
			switch k {
			case "minItems":
				n.minItems = int(i) + 1
			case "maxItems":
				n.maxItems = int(i) + 1
			case "minLength":
				n.minLength = int(i) + 1
			case "maxLength":
				n.maxLength = int(i) + 1
			}
		case "pattern":
			p, ok := val.(string)
			if !ok {
				return bad(k)
			}
			if n.pattern, err = regexp.Compile(p); err != nil {
				return bad(k)
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			num, ok := val.(json.Number)
			r, ok2 := new(big.Rat).SetString(string(num))
			if !ok || !ok2 {
				return bad(k)
			}
			switch k {
			case "minimum":
				n.minimum = r
			case "maximum":
				n.maximum = r
			case "exclusiveMinimum":
				n.exclMinimum = r
			case "exclusiveMaximum":
				n.exclMaximum = r
			}
		case "$ref":
			ref, ok := val.(string)
			if !ok {
				return bad(k)
			}
			base, err := url.Parse(u)
			if err != nil {
				return bad(k)
			}
			r, err := url.Parse(ref)
			if err != nil {
				return bad(k)
			}
			abs := base.ResolveReference(r)
			f := abs.Fragment
			abs.Fragment = ""
			n.refTo = abs.String() + "#" + f
		default:
			if !annotation(k) {
				return fmt.Errorf("schemacheck: %s: keyword %q is not supported", n.loc, k)
			}
		}
	}
	if n.refTo != "" {
		if n.ref, err = s.compileLoc(n.refTo); err != nil {
			return err
		}
	}
	return nil
}

// enumError is what jsonschema/v5 says of a value not in enum.
func enumError(enum []any) string {
	for _, x := range enum {
		switch x.(type) {
		case map[string]any, []any:
			return "enum failed"
		}
	}
	if len(enum) == 1 {
		return fmt.Sprintf("value must be %#v", enum[0])
	}
	s := make([]string, len(enum))
	for i, x := range enum {
		s[i] = fmt.Sprintf("%#v", x)
	}
	return "value must be one of " + strings.Join(s, ", ")
}

// valid reports whether v is valid against n.
func (n *schema) valid(v any) bool {
	ok := true
	n.validate(v, "", func(Problem) { ok = false })
	return ok
}

// validate reports each problem of v (at the pointer at) to report, in
// jsonschema/v5's order: the type first (and nothing else when it fails),
// const, enum, the object's, array's, string's or number's keywords, then
// $ref, not, allOf, anyOf, oneOf and if/then/else.
func (n *schema) validate(v any, at string, report func(Problem)) {
	fail := func(format string, args ...any) {
		report(Problem{Pointer: at, Message: fmt.Sprintf(format, args...)})
	}
	if n.always != nil {
		if !*n.always {
			fail("not allowed")
		}
		return
	}
	if len(n.types) > 0 {
		vt := jsonType(v)
		matched := false
		for _, t := range n.types {
			if t == vt || t == "integer" && vt == "number" && isInt(v) {
				matched = true
				break
			}
		}
		if !matched {
			fail("expected %s, but got %s", strings.Join(n.types, " or "), vt)
			return
		}
	}
	if len(n.constant) > 0 && !equals(v, n.constant[0]) {
		switch jsonType(n.constant[0]) {
		case "object", "array":
			fail("const failed")
		default:
			fail("value must be %#v", n.constant[0])
		}
	}
	if len(n.enum) > 0 {
		matched := false
		for _, x := range n.enum {
			if equals(v, x) {
				matched = true
				break
			}
		}
		if !matched {
			fail("%s", n.enumErr)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		n.validateObject(v, at, report)
	case []any:
		if n.minItems > 0 && len(v) < n.minItems-1 {
			fail("minimum %d items required, but found %d items", n.minItems-1, len(v))
		}
		if n.maxItems > 0 && len(v) > n.maxItems-1 {
			fail("maximum %d items required, but found %d items", n.maxItems-1, len(v))
		}
		if n.items != nil {
			for i, x := range v {
				n.items.validate(x, at+"/"+strconv.Itoa(i), report)
			}
		}
	case string:
		length := utf8.RuneCountInString(v)
		if n.minLength > 0 && length < n.minLength-1 {
			fail("length must be >= %d, but got %d", n.minLength-1, length)
		}
		if n.maxLength > 0 && length > n.maxLength-1 {
			fail("length must be <= %d, but got %d", n.maxLength-1, length)
		}
		if n.pattern != nil && !n.pattern.MatchString(v) {
			fail("does not match pattern %s", quote(n.pattern.String()))
		}
	case json.Number:
		num, _ := new(big.Rat).SetString(string(v))
		f64 := func(r *big.Rat) float64 { f, _ := r.Float64(); return f }
		if n.minimum != nil && num.Cmp(n.minimum) < 0 {
			fail("must be >= %v but found %v", f64(n.minimum), v)
		}
		if n.exclMinimum != nil && num.Cmp(n.exclMinimum) <= 0 {
			fail("must be > %v but found %v", f64(n.exclMinimum), v)
		}
		if n.maximum != nil && num.Cmp(n.maximum) > 0 {
			fail("must be <= %v but found %v", f64(n.maximum), v)
		}
		if n.exclMaximum != nil && num.Cmp(n.exclMaximum) >= 0 {
			fail("must be < %v but found %v", f64(n.exclMaximum), v)
		}
	}
	if n.ref != nil {
		n.ref.validate(v, at, report)
	}
	if n.not != nil && n.not.valid(v) {
		fail("not failed")
	}
	for _, c := range n.allOf {
		c.validate(v, at, report)
	}
	if len(n.anyOf) > 0 {
		var causes []Problem
		matched := false
		for _, c := range n.anyOf {
			ok := true
			c.validate(v, at, func(p Problem) { ok = false; causes = append(causes, p) })
			if ok {
				matched = true
				break
			}
		}
		if !matched {
			for _, p := range causes {
				report(p)
			}
		}
	}
	if len(n.oneOf) > 0 {
		var causes []Problem
		first := -1
		for i, c := range n.oneOf {
			ok := true
			c.validate(v, at, func(p Problem) { ok = false; causes = append(causes, p) })
			if !ok {
				continue
			}
			if first >= 0 {
				fail("valid against schemas at indexes %d and %d", first, i)
				break
			}
			first = i
		}
		if first < 0 {
			for _, p := range causes {
				report(p)
			}
		}
	}
	if n.ifS != nil {
		if n.ifS.valid(v) {
			if n.thenS != nil {
				n.thenS.validate(v, at, report)
			}
		} else if n.elseS != nil {
			n.elseS.validate(v, at, report)
		}
	}
}

func (n *schema) validateObject(v map[string]any, at string, report func(Problem)) {
	if len(n.required) > 0 {
		var missing []string
		for _, p := range n.required {
			if _, ok := v[p]; !ok {
				missing = append(missing, quote(p))
			}
		}
		if len(missing) > 0 {
			report(Problem{Pointer: at, Message: "missing properties: " + strings.Join(missing, ", ")})
		}
	}
	names := make([]string, 0, len(v))
	for p := range v {
		names = append(names, p)
	}
	sort.Strings(names)
	evaluated := map[string]bool{}
	for _, p := range n.propNames {
		if x, ok := v[p]; ok {
			evaluated[p] = true
			n.properties[p].validate(x, at+"/"+escape(p), report)
		}
	}
	if n.propertyNames != nil {
		for _, p := range names {
			n.propertyNames.validate(p, at+"/"+escape(p), report)
		}
	}
	for _, pp := range n.patternProps {
		for _, p := range names {
			if pp.re.MatchString(p) {
				evaluated[p] = true
				pp.s.validate(v[p], at+"/"+escape(p), report)
			}
		}
	}
	var rest []string
	for _, p := range names {
		if !evaluated[p] {
			rest = append(rest, p)
		}
	}
	switch {
	case n.additionalBool != nil && !*n.additionalBool && len(rest) > 0:
		q := make([]string, len(rest))
		for i, p := range rest {
			q[i] = quote(p)
		}
		report(Problem{Pointer: at, Message: "additionalProperties " + strings.Join(q, ", ") + " not allowed"})
	case n.additional != nil:
		for _, p := range rest {
			n.additional.validate(v[p], at+"/"+escape(p), report)
		}
	}
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func isInt(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	r, ok := new(big.Rat).SetString(string(n))
	return ok && r.IsInt()
}

// equals compares two decoded values as JSON values (numbers by value).
func equals(a, b any) bool {
	ta := jsonType(a)
	if ta != jsonType(b) {
		return false
	}
	switch ta {
	case "array":
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equals(x[i], y[i]) {
				return false
			}
		}
		return true
	case "object":
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equals(xv, yv) {
				return false
			}
		}
		return true
	case "number":
		x, ok1 := new(big.Rat).SetString(string(a.(json.Number)))
		y, ok2 := new(big.Rat).SetString(string(b.(json.Number)))
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	return a == b
}

// quote writes s in single quotes, as jsonschema/v5 quotes names and
// patterns in its messages.
func quote(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// escape writes one JSON Pointer token as jsonschema/v5 writes it in an
// instance location.
func escape(tok string) string {
	tok = strings.ReplaceAll(tok, "~", "~0")
	tok = strings.ReplaceAll(tok, "/", "~1")
	return url.PathEscape(tok)
}
