package schemacheck_test

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/reasonreplay/replay/internal/schemacheck"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// every uses each keyword the package supports, the ones the project's
// schemas do not use included.
const every = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.test/every.json",
  "type": "object",
  "required": ["kind"],
  "properties": {
    "kind": {"enum": ["a", "b", 3, null]},
    "n": {"type": "integer", "minimum": 1, "maximum": 10, "exclusiveMaximum": 9},
    "x": {"type": "number", "exclusiveMinimum": 0},
    "s": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"},
    "list": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"$ref": "#/$defs/leaf"}},
    "one": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"const": 1.0}]},
    "no": {"not": {"type": "null"}},
    "c": {"const": {"a": [1]}},
    "e": {"enum": [[1], {"a": 1}]},
    "b": false,
    "t": true,
    "other": {"$ref": "leaf.json"}
  },
  "patternProperties": {"^p_": {"type": "boolean"}},
  "additionalProperties": {"type": "string"},
  "propertyNames": {"maxLength": 6},
  "if": {"properties": {"kind": {"const": "a"}}},
  "then": {"required": ["n"]},
  "else": {"required": ["s"]},
  "$defs": {"leaf": {"type": ["string", "null"], "description": "a leaf", "format": "uri"}}
}`

const leaf = `{"$id": "https://example.test/leaf.json", "type": "object", "properties": {"v": {"type": "integer"}}, "additionalProperties": false, "anyOf": [{"required": ["v"]}, {"required": ["w"]}]}`

func TestAgreesWithJSONSchemaOnEveryKeyword(t *testing.T) {
	set, err := schemacheck.Compile(map[string][]byte{"https://example.test/every.json": []byte(every), "https://example.test/leaf.json": []byte(leaf)})
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	require.NoError(t, c.AddResource("https://example.test/every.json", strings.NewReader(every)))
	require.NoError(t, c.AddResource("https://example.test/leaf.json", strings.NewReader(leaf)))
	ref, err := c.Compile("https://example.test/every.json")
	require.NoError(t, err)
	docs := []string{
		`{"kind":"a","n":5}`, `{"kind":"a"}`, `{"kind":"b"}`, `{"kind":"c","s":"abc"}`, `[]`, `"x"`, `null`,
		`{"kind":3,"n":0,"x":0,"s":"A","list":[],"one":1,"no":null,"c":{"a":[2]},"e":[2],"b":1,"t":1}`,
		`{"kind":null,"n":1.5,"x":-1,"s":"abcdefg","list":[1,2,3],"one":true,"c":{"a":[1]},"e":{"a":1.0},"p_1":"x","zz":1,"longname":"s"}`,
		`{"kind":"b","s":"ab","n":9,"n2":"ok","other":{"v":"1","u":1},"list":["a",null]}`,
		`{"kind":"b","s":"ab","other":{},"one":"s","p_x":false,"q":"s"}`,
		`{"kind":"a","n":10,"x":1e-3,"s":"ab~/"}`, `{"kind":"a","n":1e1}`, `{"kind":"a","n":2.0}`,
	}
	for _, d := range docs {
		var v any
		dec := json.NewDecoder(strings.NewReader(d))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&v))
		var want []string
		var ve *jsonschema.ValidationError
		if errors.As(ref.Validate(v), &ve) {
			var walk func(e *jsonschema.ValidationError)
			walk = func(e *jsonschema.ValidationError) {
				if len(e.Causes) == 0 {
					want = append(want, e.InstanceLocation+": "+e.Message)
				}
				for _, c := range e.Causes {
					walk(c)
				}
			}
			walk(ve)
		}
		var got []string
		for _, p := range set.Validate("https://example.test/every.json", v) {
			got = append(got, p.Pointer+": "+p.Message)
		}
		assert.Equal(t, norm(want), norm(got), d)
	}
}

// norm sorts problems, and the names of an additionalProperties message
// (jsonschema/v5 lists them in a map's order).
func norm(ps []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, p := range ps {
		if i := strings.Index(p, ": additionalProperties "); i >= 0 {
			list := strings.Split(strings.TrimSuffix(p[i+len(": additionalProperties "):], " not allowed"), ", ")
			sort.Strings(list)
			p = p[:i] + ": additionalProperties " + strings.Join(list, ", ") + " not allowed"
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// A keyword outside the subset, a reference to nothing and a bad pattern
// are refused when compiling: nothing is ignored silently.
func TestCompileRefuses(t *testing.T) {
	for doc, want := range map[string]string{
		`{"unevaluatedProperties": false}`:    `keyword "unevaluatedProperties" is not supported`,
		`{"$ref": "#/$defs/none"}`:            "no such schema",
		`{"$ref": "other.json"}`:              "no such document",
		`{"pattern": "("}`:                    `keyword "pattern": unsupported value`,
		`{"items": [{"type": "string"}]}`:     `keyword "items": unsupported value`,
		`{"type": 1}`:                         `keyword "type": unsupported value`,
		`{"minItems": -1}`:                    `keyword "minItems": unsupported value`,
		`[1]`:                                 "a schema must be an object or a boolean",
		`{"properties": {"a": {"if": 1}}}`:    "a schema must be an object or a boolean",
		`{"dependentRequired": {"a": ["b"]}}`: `keyword "dependentRequired" is not supported`,
	} {
		_, err := schemacheck.Compile(map[string][]byte{"https://example.test/s.json": []byte(doc)})
		if assert.Error(t, err, doc) {
			assert.Contains(t, err.Error(), want, doc)
		}
	}
	set, err := schemacheck.Compile(map[string][]byte{"https://example.test/s.json": []byte(`{"type":"string"}`)})
	require.NoError(t, err)
	assert.Equal(t, []schemacheck.Problem{{Message: "schemacheck: no schema https://example.test/t.json"}}, set.Validate("https://example.test/t.json", "x"))
	assert.Empty(t, set.Validate("https://example.test/s.json", "x"))
	assert.Equal(t, []schemacheck.Problem{{Pointer: "", Message: "expected string, but got array"}}, set.Validate("https://example.test/s.json", []any{}))
}
