// Package schema publishes the JSON Schemas (draft 2020-12) of the documents
// this module reads and writes, and validates documents against them.
//
//   - item.schema.json: one reasoning item (OpenRouter's reasoning_details
//     members plus this library's `unfinished`, `attached`, `display`,
//     `digest` and `extra`);
//   - turn.schema.json: the turn document that `replay decode` prints;
//   - report.schema.json: the audit report.
//
// The schema files are embedded ([FS]).
//
// # Document format policy
//
// Turn documents and audit reports carry a `version` (an item document
// carries none: it is read by the rules that read every version's items).
// The library writes [replay.DocumentVersion] and promises:
//
//   - A reader reads every version ever written: [replay.UnmarshalTurn],
//     [replay.UnmarshalItem] and [Validate] accept every earlier version's
//     documents, each read with the meaning it was written with, and the
//     schemas validate them. A newer version than the library knows is
//     refused ([replay.ErrVersion]).
//   - A renamed member is read under both names, in every version (the
//     provenance's `issuer` is today's `account`); the writer writes the
//     new name; a document with both is refused.
//   - A change in meaning bumps the version, with a reader for the old
//     one. Version 2 was such a change: version 1's `prefix_hash` was made
//     by one of two definitions the document does not name (read as
//     [replay.Provenance].LegacyPrefixHash, never reported as a mismatch),
//     and its first builds wrote the provider's members named like the
//     library's beside the item (a member of the library's name and of
//     another type than the library's is read as the provider's).
//   - The provider's members are opaque bytes: what the library keeps as
//     the provider sent it (a block's unknown members, a native block, an
//     item of an unknown type, the usage) is written byte for byte, not
//     compacted, reordered or escaped again, and reads back to the same
//     bytes, so a turn encodes the same before and after its document. A
//     block whose provider members include a name of the document's own
//     has all of them in its `extra` object, and an item of an unknown type
//     that carries the library's members is wrapped, so that the library's
//     members and the provider's are never taken for one another.
//
// Every earlier shape is kept in testdata/documents, written by the builds
// that wrote it, and tested to read, validate, encode and audit as it did.
// The README lists the versions and what each build wrote.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/schemacheck"
	"github.com/tidwall/gjson"
)

// FS returns the schema files, read-only.
func FS() fs.FS { return files }

//go:embed *.schema.json
var files embed.FS

// Kind names a document kind.
type Kind string

// The document kinds.
const (
	Item   Kind = "item"
	Turn   Kind = "turn"
	Report Kind = "report"
)

const base = "https://github.com/reasonreplay/replay/schema/"

// File returns the schema file name of k.
func (k Kind) File() string { return string(k) + ".schema.json" }

var (
	once     sync.Once
	compiled *schemacheck.Set
	initErr  error
)

// load compiles the three schemas, once, with the project's own validator
// of the keywords they use (internal/schemacheck): a binary that validates
// documents does not link a general JSON Schema implementation and its
// meta-schemas. The tests hold it to jsonschema/v5's verdicts and problems.
func load() {
	docs := map[string][]byte{}
	for _, k := range []Kind{Item, Turn, Report} {
		b, err := files.ReadFile(k.File())
		if err != nil {
			initErr = err
			return
		}
		docs[base+k.File()] = b
	}
	compiled, initErr = schemacheck.Compile(docs)
}

// Problem is one reason a document is invalid: where (a JSON Pointer into
// the document) and what.
type Problem struct {
	Pointer string
	Message string
}

// Error lists why a document does not validate. The text is not API.
type Error struct {
	Kind     Kind
	Problems []Problem
}

// Error lists the problems, one a line. The text is not API.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schema: not a valid %s document", e.Kind)
	for _, p := range e.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "/"
		}
		fmt.Fprintf(&b, "\n  %s: %s", ptr, p.Message)
	}
	return b.String()
}

// Validate checks doc against the schema of kind. It returns nil, or an
// *Error naming each offending member by JSON Pointer.
//
// Turn and item documents are validated in two stages. The library's own
// reader ([replay.UnmarshalTurn], [replay.UnmarshalItem]) decides, in one
// linear pass with memory close to the document's size: it accepts exactly
// the documents the published schema accepts (a property the tests fuzz),
// and besides refuses what JSON Schema cannot see (a member name repeated in
// one object, nesting deeper than the library reads). Only a document it
// refuses is run through the JSON Schema validator, to list every problem
// by pointer. Reports are small and go through the JSON Schema validator.
func Validate(kind Kind, doc []byte) error {
	var read func([]byte) error
	switch kind {
	case Turn:
		read = func(b []byte) error { _, err := replay.UnmarshalTurn(b); return err }
	case Item:
		read = func(b []byte) error { _, err := replay.UnmarshalItem(b); return err }
	case Report:
		return ValidateSchema(kind, doc)
	default:
		return fmt.Errorf("schema: unknown kind %q", kind)
	}
	rerr := read(doc)
	if rerr == nil {
		return nil
	}
	err := ValidateSchema(kind, doc)
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	if err != nil {
		return err
	}
	// The schema cannot see what the reader refused: say the reader's
	// reason at its pointer.
	p := Problem{Message: rerr.Error()}
	var re *replay.Error
	if errors.As(rerr, &re) {
		p = Problem{Pointer: re.Pointer, Message: re.Err.Error()}
	}
	return &Error{Kind: kind, Problems: []Problem{p}}
}

// ValidateSchema checks doc against the JSON Schema of kind alone, with a
// JSON Schema validator (the published schema's semantics, at its speed:
// the document is decoded into a tree first). [Validate] is the one to
// call; this is for comparing the schema with the library.
func ValidateSchema(kind Kind, doc []byte) error {
	once.Do(load)
	if initErr != nil {
		return fmt.Errorf("schema: loading the schemas: %w", initErr)
	}
	switch kind {
	case Item, Turn, Report:
	default:
		return fmt.Errorf("schema: unknown kind %q", kind)
	}
	if why := jsonw.Explain(string(doc)); why != "" && strings.HasPrefix(why, "JSON nested") {
		// encoding/json would recurse as deep as the input goes.
		return &Error{Kind: kind, Problems: []Problem{{Message: "not valid JSON: " + why}}}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil && len(bytes.TrimLeft(doc[dec.InputOffset():], " \t\r\n")) > 0 {
		err = errors.New("more than one JSON value, or text after it")
	}
	if err != nil {
		return &Error{Kind: kind, Problems: []Problem{{Message: "not valid JSON: " + err.Error()}}}
	}
	problems := compiled.Validate(base+kind.File(), v)
	if len(problems) == 0 {
		return nil
	}
	out := &Error{Kind: kind}
	seen := map[Problem]bool{}
	for _, p := range problems {
		p := Problem{Pointer: p.Pointer, Message: p.Message}
		if !seen[p] {
			seen[p] = true
			out.Problems = append(out.Problems, p)
		}
	}
	sort.SliceStable(out.Problems, func(i, j int) bool { return out.Problems[i].Pointer < out.Problems[j].Pointer })
	return out
}

// Detect tells the kind of a document from its shape: a `blocks` array
// makes a turn, a `violations` array a report, a `reasoning.*` type an item.
func Detect(doc []byte) (Kind, bool) {
	if !jsonw.ValidBytes(doc) {
		return "", false
	}
	r := gjson.ParseBytes(doc)
	switch {
	case r.Get("blocks").Exists():
		return Turn, true
	case r.Get("violations").Exists():
		return Report, true
	case strings.HasPrefix(r.Get("type").String(), "reasoning."):
		return Item, true
	}
	return "", false
}
