package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reasonreplay/replay/schema"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/stretchr/testify/require"
)

// reference compiles the published schemas with jsonschema/v5, the JSON
// Schema implementation the project's own validator is held to.
func reference(t testing.TB) map[schema.Kind]*jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	kinds := []schema.Kind{schema.Item, schema.Turn, schema.Report}
	for _, k := range kinds {
		b, err := fs.ReadFile(schema.FS(), k.File())
		require.NoError(t, err)
		require.NoError(t, c.AddResource("https://github.com/reasonreplay/replay/schema/"+k.File(), bytes.NewReader(b)))
	}
	out := map[schema.Kind]*jsonschema.Schema{}
	for _, k := range kinds {
		s, err := c.Compile("https://github.com/reasonreplay/replay/schema/" + k.File())
		require.NoError(t, err)
		out[k] = s
	}
	return out
}

// referenceProblems are jsonschema/v5's leaf errors for v.
func referenceProblems(s *jsonschema.Schema, v any) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(s.Validate(v), &ve) {
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, e.InstanceLocation+": "+e.Message)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return normalise(out)
}

var names = regexp.MustCompile(`^(.*: additionalProperties )(.*)( not allowed)$`)

// normalise sorts problems and the names listed in one message, whose
// order jsonschema/v5 takes from a map; repeats go, as Validate drops them.
func normalise(ps []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if m := names.FindStringSubmatch(p); m != nil {
			list := strings.Split(m[2], ", ")
			sort.Strings(list)
			p = m[1] + strings.Join(list, ", ") + m[3]
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func ownProblems(t testing.TB, kind schema.Kind, doc []byte) []string {
	err := schema.ValidateSchema(kind, doc)
	if err == nil {
		return nil
	}
	var se *schema.Error
	require.ErrorAs(t, err, &se)
	var out []string
	for _, p := range se.Problems {
		out = append(out, p.Pointer+": "+p.Message)
	}
	return normalise(out)
}

// agreeWithReference requires the same problems of doc from the project's
// validator and from jsonschema/v5, for every kind.
func agreeWithReference(t testing.TB, ref map[schema.Kind]*jsonschema.Schema, doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if !utf8.Valid(doc) || dec.Decode(&v) != nil || len(bytes.TrimLeft(doc[dec.InputOffset():], " \t\r\n")) > 0 ||
		bytes.Count(doc, []byte("["))+bytes.Count(doc, []byte("{")) > 200 {
		return false // what the JSON decoder refuses is refused before either validator runs
	}
	if emptyName(v) {
		// jsonschema/v5 locates a member named "" at its object ("/a"),
		// not at "/a/" as JSON Pointer does: the one known difference.
		return false
	}
	for _, k := range []schema.Kind{schema.Item, schema.Turn, schema.Report} {
		want := referenceProblems(ref[k], v)
		got := ownProblems(t, k, doc)
		require.Equal(t, want, got, "%s: %s", k, doc)
	}
	return true
}

// mutants are doc with one change at each object member and array
// element: removed, replaced by a value of each JSON type, and a member
// added to each object.
func mutants(doc []byte) [][]byte {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root any
	if dec.Decode(&root) != nil {
		return nil
	}
	replacements := []any{nil, true, json.Number("-1"), json.Number("1.5"), "x", "reasoning.x", []any{}, map[string]any{}}
	var out [][]byte
	emit := func() {
		b, err := json.Marshal(root)
		if err == nil {
			out = append(out, b)
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				old := x[k]
				delete(x, k)
				emit()
				for _, r := range replacements {
					x[k] = r
					emit()
				}
				x[k] = old
				walk(old)
			}
			x["zz"] = json.Number("1")
			emit()
			delete(x, "zz")
		case []any:
			for i, e := range x {
				for _, r := range replacements {
					x[i] = r
					emit()
				}
				x[i] = e
				walk(e)
			}
		}
	}
	walk(root)
	return out
}

// The project's validator finds what jsonschema/v5 finds, problem for
// problem, on every document of the project's testdata under 8 KB, on the
// edge cases of the agreement test, and on every one-change mutant of
// those under 1.5 KB.
func TestValidatorAgreesWithReference(t *testing.T) {
	ref := reference(t)
	var docs [][]byte
	for _, s := range agreeSeeds {
		docs = append(docs, []byte(s))
	}
	err := filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") || strings.Contains(path, "/fuzz/") {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && len(b) < 8<<10 {
			if _, ok := schema.Detect(b); ok {
				docs = append(docs, b)
			}
		}
		return err
	})
	require.NoError(t, err)
	n, m := 0, 0
	for _, d := range docs {
		if agreeWithReference(t, ref, d) {
			n++
		}
		if len(d) > 1500 {
			continue // larger documents repeat the shapes of the smaller ones
		}
		for _, x := range mutants(d) {
			if agreeWithReference(t, ref, x) {
				m++
			}
		}
	}
	require.Greater(t, n, 50)
	t.Logf("%d documents and %d mutants: the same problems", n, m)
}

// FuzzValidatorAgreesWithReference: the same problems as jsonschema/v5 on
// any document.
func FuzzValidatorAgreesWithReference(f *testing.F) {
	for _, s := range agreeSeeds {
		f.Add(s)
	}
	f.Add(`{"version":1,"complete":true,"blocks":[{"type":"tool_call","id":"c","name":"f","arguments":"{}"}],"zz":{"~a/b":1}}`)
	f.Add(`{"version":1,"target":{"api":1},"clean":true,"turns":-1,"items":0,"signed":0,"formats":{"x":-2},"violations":[{"rule":"R","severity":"x"}]}`)
	ref := reference(f)
	f.Fuzz(func(t *testing.T, doc string) {
		agreeWithReference(t, ref, []byte(doc))
	})
}

func ExampleValidateSchema() {
	err := schema.ValidateSchema(schema.Report, []byte(`{"version":1,"target":{},"clean":true,"turns":0,"items":0,"signed":0,"formats":{},"violations":[{"rule":"x/y","severity":"fatal","turn":0,"block":0,"message":"m"}]}`))
	fmt.Println(err)
	// Output:
	// schema: not a valid report document
	//   /violations/0/severity: value must be one of "reject", "degrade", "risk"
}

// emptyName reports whether v has an object member named "".
func emptyName(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "" || emptyName(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if emptyName(e) {
				return true
			}
		}
	}
	return false
}

// A member named "" is located as JSON Pointer writes it.
func TestEmptyMemberName(t *testing.T) {
	err := schema.ValidateSchema(schema.Report, []byte(`{"version":1,"target":{},"clean":true,"turns":0,"items":0,"signed":0,"formats":{"":-1},"violations":[]}`))
	var se *schema.Error
	require.ErrorAs(t, err, &se)
	require.Equal(t, []schema.Problem{{Pointer: "/formats/", Message: "must be >= 0 but found -1"}}, se.Problems)
}
