package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/schema"
	"github.com/tidwall/gjson"
)

func defineValidate(fs *flag.FlagSet) func(*env, []string) error {
	kindFlag := fs.String("kind", "", "the document `KIND`: turn, item or report; by default told from the document's shape")
	return func(e *env, pos []string) error {
		if len(pos) == 0 {
			return usageError("want at least one FILE (or - for standard input)")
		}
		switch *kindFlag {
		case "", "turn", "item", "report":
		default:
			return usageError("unknown --kind %q (want turn, item or report)", *kindFlag)
		}
		bad, unreadable := 0, 0
		for _, name := range pos {
			data, err := readFile(e, name)
			if err != nil {
				return err
			}
			name = displayName(name)
			if !json.Valid(data) {
				// Not a document to judge: what every command says of a
				// file that is not JSON (exit status 2).
				fmt.Fprintf(e.stderr, "%s: not JSON: expected a turn, item or report document\n", name)
				unreadable++
				continue
			}
			if msg := validate(schema.Kind(*kindFlag), data); msg != "" {
				fmt.Fprintf(e.stderr, "%s: %s\n", name, msg)
				bad++
				continue
			}
			kind := schema.Kind(*kindFlag)
			if kind == "" {
				kind, _ = schema.Detect(data)
			}
			fmt.Fprintf(e.stdout, "ok  %s (%s)\n", name, kind)
		}
		if unreadable > 0 {
			return &exitError{code: exitCannot, err: fmt.Errorf("%d of %s not JSON", unreadable, plural(len(pos), "file is", "files are"))}
		}
		if bad > 0 {
			return &exitError{code: exitRefused, err: fmt.Errorf("%d of %s not valid", bad, plural(len(pos), "document is", "documents are"))}
		}
		return nil
	}
}

// validate returns why data is not a valid document of kind ("" to tell
// the kind from its shape), or "".
func validate(kind schema.Kind, data []byte) string {
	detected, ok := schema.Detect(data)
	if kind == "" {
		if !ok {
			return "not a turn, item or report document (name its kind with --kind)"
		}
		kind = detected
	} else if ok && detected != kind {
		return fmt.Sprintf("%s %s document, not %s %s (give --kind %s, or leave --kind out)", article(string(detected)), detected, article(string(kind)), kind, detected)
	}
	if err := schema.Validate(kind, data); err != nil {
		var se *schema.Error
		if errors.As(err, &se) {
			return likeliest(se, data)
		}
		return message(err)
	}
	if kind == schema.Turn {
		if _, err := replay.UnmarshalTurn(data); err != nil {
			return message(err)
		}
	}
	return ""
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// branches are the alternatives of the item and block unions, each with
// the member that only it has.
var branches = []struct{ member, typ string }{
	{"summary", "reasoning.summary"},
	{"data", "reasoning.encrypted"},
	{"signature", "reasoning.text"},
	{"arguments", "tool_call"},
	{"raw", "native"},
	{"text", "text"},
}

// likeliest renders a schema error, reporting for an object without a
// usable type the one alternative of the union its members point to,
// instead of every alternative's complaints.
func likeliest(se *schema.Error, data []byte) string {
	byPtr := map[string][]schema.Problem{}
	var order []string
	for _, p := range se.Problems {
		if _, ok := byPtr[p.Pointer]; !ok {
			order = append(order, p.Pointer)
		}
		byPtr[p.Pointer] = append(byPtr[p.Pointer], p)
	}
	sort.Strings(order)
	var b strings.Builder
	fmt.Fprintf(&b, "not a valid %s document", se.Kind)
	for _, ptr := range order {
		ps := byPtr[ptr]
		obj := gjson.GetBytes(data, pointerPath(ptr))
		if obj.IsObject() && !obj.Get("type").Exists() && len(ps) > 1 {
			typ := guessType(obj, se.Kind == schema.Item || strings.HasPrefix(ptr, "/blocks/"))
			fmt.Fprintf(&b, "\n  %s: missing member \"type\"", orRoot(ptr))
			if typ != "" {
				fmt.Fprintf(&b, " (its members make it likeliest %s %q)", article(typ), typ)
			}
			continue
		}
		for _, p := range ps {
			fmt.Fprintf(&b, "\n  %s: %s", orRoot(p.Pointer), p.Message)
		}
	}
	return b.String()
}

// guessType names the union alternative whose own member obj has.
func guessType(obj gjson.Result, union bool) string {
	if !union {
		return ""
	}
	for _, br := range branches {
		if obj.Get(br.member).Exists() {
			if br.typ == "text" && obj.Get("format").Exists() {
				return "reasoning.text"
			}
			return br.typ
		}
	}
	return ""
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// pointerPath turns a JSON Pointer into a gjson path ("" for the root).
func pointerPath(ptr string) string {
	if ptr == "" || ptr == "/" {
		return "@this"
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		parts[i] = gjsonEscape(p)
	}
	return strings.Join(parts, ".")
}

func gjsonEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`.*?|#@\!=<>%`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
