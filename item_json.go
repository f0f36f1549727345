package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// This file writes and reads the two JSON forms of a reasoning item: the
// document form (the reasoning_details members plus this library's own
// `unfinished`, `attached`, `display` and `digest`), and the wire form (the
// item's replay bytes: exactly the members its issuer sent, with no library
// member).
// MarshalItem returns the document form of it: the reasoning_details
// members (`type`, `text`, `signature`, `summary`, `data`, `id`, `format`,
// `index`) plus this library's own `unfinished`, `attached`, `display` and
// `digest`.
func MarshalItem(it ReasoningItem) []byte { return appendItem(nil, it, false) }

// AppendItem appends the document form of it to dst.
func AppendItem(dst []byte, it ReasoningItem) []byte { return appendItem(dst, it, false) }

// AppendItemWire appends the wire form of it: the item's replay bytes, one
// reasoning_details entry exactly as its issuer sent it (known members,
// then unknown members verbatim), without this library's own members. An
// Opaque item is written as its raw object. [ItemDigest] hashes this form.
func AppendItemWire(dst []byte, it ReasoningItem) []byte { return appendItem(dst, it, true) }

func appendItem(dst []byte, it ReasoningItem, wire bool) []byte {
	if o, ok := it.(*Opaque); ok {
		if wire {
			return append(dst, o.Raw...)
		}
		return appendCompact(dst, o.Raw)
	}
	m := it.Meta()
	dst = append(dst, `{"type":`...)
	dst = jsonw.String(dst, string(it.Kind()))
	switch it := it.(type) {
	case *ReasoningText:
		dst = jsonw.Key(dst, "text")
		dst = jsonw.String(dst, it.Text)
		dst = appendOptString(dst, "signature", it.Signature)
	case *Summary:
		dst = jsonw.Key(dst, "summary")
		dst = jsonw.String(dst, it.Summary)
	case *Encrypted:
		dst = jsonw.Key(dst, "data")
		dst = jsonw.String(dst, it.Data)
	default:
		panic(fmt.Sprintf("replay: unknown ReasoningItem type %T", it))
	}
	dst = appendOptString(dst, "id", m.ID)
	if m.Format != "" {
		dst = jsonw.Key(dst, "format")
		dst = jsonw.String(dst, string(m.Format))
	}
	switch m.Index.Presence() {
	case Present:
		dst = jsonw.Key(dst, "index")
		dst = jsonw.Int(dst, m.Index.Value())
	case Null:
		dst = append(dst, `,"index":null`...)
	}
	if !wire {
		if m.Unfinished {
			dst = append(dst, `,"unfinished":true`...)
		}
		if m.Attached {
			dst = append(dst, `,"attached":true`...)
		}
		if m.Display.IsPresent() {
			dst = jsonw.Key(dst, "display")
			dst = jsonw.String(dst, m.Display.Value())
		}
		if m.Digest != "" {
			dst = jsonw.Key(dst, "digest")
			dst = jsonw.String(dst, m.Digest)
		}
	}
	if wire {
		dst = jsonw.Members(dst, m.Extra)
	} else {
		dst = appendExtra(dst, m.Extra, itemNames)
	}
	return append(dst, '}')
}

// The member names of each block kind in the document form, and "extra",
// where a provider's own member of one of these names is written instead
// of beside it (so that the document never holds a name twice).
var (
	itemNames     = []string{"type", "text", "summary", "data", "signature", "id", "format", "index", "unfinished", "attached", "display", "digest", "extra"}
	textNames     = []string{"type", "text", "id", "extra"}
	toolCallNames = []string{"type", "id", "name", "arguments", "item_id", "unfinished", "extra"}
)

// appendExtra writes a block's extra members in the document form: beside
// the block's own members, except those whose names the document uses,
// which go in one "extra" object.
func appendExtra(dst, extra []byte, names []string) []byte {
	if len(extra) == 0 {
		return dst
	}
	plain, taken := jsonw.SplitMembers(compact(extra), names...)
	dst = jsonw.Members(dst, plain)
	if taken != nil {
		dst = jsonw.Key(dst, "extra")
		dst = append(dst, taken...)
	}
	return dst
}

// appendCompact appends the JSON value raw without insignificant white
// space, so that a document stays one line; string values are untouched.
func appendCompact(dst []byte, raw []byte) []byte {
	if bytes.IndexAny(raw, "\t\r\n") < 0 {
		return append(dst, raw...)
	}
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, raw); err != nil {
		return append(dst, raw...)
	}
	return buf.Bytes()
}

func compact(raw []byte) []byte {
	if bytes.IndexAny(raw, "\t\r\n") < 0 {
		return raw
	}
	return appendCompact(nil, raw)
}

func appendOptString(dst []byte, k string, o Opt[string]) []byte {
	switch o.Presence() {
	case Present:
		dst = jsonw.Key(dst, k)
		dst = jsonw.String(dst, o.Value())
	case Null:
		dst = jsonw.Key(dst, k)
		dst = append(dst, "null"...)
	}
	return dst
}

// UnmarshalItem reads the document form of one reasoning item.
func UnmarshalItem(data []byte) (ReasoningItem, error) {
	if !validJSON(data) {
		return nil, &Error{Event: -1, Err: fmt.Errorf("%w: not valid JSON (UTF-8)", ErrMalformed)}
	}
	return parseItem(gjson.ParseBytes(data), false, "")
}

// UnmarshalItemWire reads the wire form of one reasoning item: a
// reasoning_details entry. Members this library does not know (including
// ones named like its own document members) are kept in Extra. A detail of
// an unknown type becomes an [*Opaque] item. data must be valid JSON.
func UnmarshalItemWire(data []byte) (ReasoningItem, error) {
	if !validJSON(data) {
		return nil, &Error{Event: -1, Err: fmt.Errorf("%w: not valid JSON (UTF-8)", ErrMalformed)}
	}
	return parseItem(gjson.ParseBytes(data), true, "")
}

// validJSON reports whether data is valid JSON text, which RFC 8259 requires
// to be UTF-8: an id or signature with invalid bytes could not be kept
// byte-exact, so such input is refused rather than altered.
func validJSON(data []byte) bool { return utf8.Valid(data) && jsonw.ValidBytes(data) }

func docErr(ptr, format string, args ...any) error {
	return &Error{Event: -1, Pointer: ptr, Err: fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))}
}

func clone(s string) string {
	if s == "" {
		return ""
	}
	return string(append([]byte(nil), s...))
}

func cloneBytes(s string) []byte { return append([]byte(nil), s...) }

// parseItem reads a reasoning item object. In wire form the library's own
// members are unknown members.
func parseItem(v gjson.Result, wire bool, ptr string) (ReasoningItem, error) {
	if !v.IsObject() {
		return nil, docErr(ptr, "a reasoning item must be a JSON object")
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		return nil, docErr(ptr+"/type", "a reasoning item needs a string type")
	}
	var (
		meta  ItemMeta
		extra []byte
		text  = &ReasoningText{}
		sum   = &Summary{}
		enc   = &Encrypted{}
		kind  = ItemKind(typ.Str)
		err   error
		found = map[string]bool{}
	)
	switch kind {
	case KindText, KindSummary, KindEncrypted:
	default:
		if !strings.HasPrefix(typ.Str, "reasoning.") || len(typ.Str) == len("reasoning.") {
			return nil, docErr(ptr+"/type", "a reasoning item's type must be reasoning.<kind>, not %q", typ.Str)
		}
		o := &Opaque{Type: clone(typ.Str), Raw: cloneBytes(v.Raw)}
		if f := v.Get("format"); f.Type == gjson.String {
			o.Format = Format(clone(f.Str))
		}
		if id := v.Get("id"); id.Type == gjson.String {
			o.ID = Some(clone(id.Str))
		}
		if ix := v.Get("index"); ix.Type == gjson.Number {
			o.Index = Some(int(ix.Int()))
		}
		return o, nil
	}
	v.ForEach(func(key, val gjson.Result) bool {
		k := key.Str
		p := ptr + "/" + escapePointer(k)
		if found[k] {
			err = docErr(p, "duplicate member %q", k)
			return false
		}
		found[k] = true
		str := func(dst *string) {
			if val.Type != gjson.String {
				err = docErr(p, "%s must be a string", k)
				return
			}
			*dst = clone(val.Str)
		}
		optStr := func(dst *Opt[string]) {
			switch val.Type {
			case gjson.String:
				*dst = Some(clone(val.Str))
			case gjson.Null:
				*dst = NullOf[string]()
			default:
				err = docErr(p, "%s must be a string or null", k)
			}
		}
		switch {
		case k == "type":
		case k == "format":
			switch val.Type {
			case gjson.String:
				meta.Format = Format(clone(val.Str))
			case gjson.Null:
				// A null format says nothing; keep it verbatim.
				extra = appendMember(extra, key.Raw, val.Raw)
			default:
				err = docErr(p, "format must be a string")
			}
		case k == "id":
			optStr(&meta.ID)
		case k == "index":
			switch val.Type {
			case gjson.Number:
				n, perr := strconv.Atoi(val.Raw)
				if perr != nil {
					err = docErr(p, "index must be an integer")
					return false
				}
				meta.Index = Some(n)
			case gjson.Null:
				meta.Index = NullOf[int]()
			default:
				err = docErr(p, "index must be an integer or null")
			}
		case k == "text" && kind == KindText:
			if val.Type == gjson.Null && wire {
				return true
			}
			str(&text.Text)
		case k == "signature" && kind == KindText:
			optStr(&text.Signature)
		case k == "summary" && kind == KindSummary:
			str(&sum.Summary)
		case k == "data" && kind == KindEncrypted:
			str(&enc.Data)
		case k == "unfinished" && !wire:
			if val.Type != gjson.True && val.Type != gjson.False {
				err = docErr(p, "unfinished must be a boolean")
			}
			meta.Unfinished = val.Type == gjson.True
		case k == "attached" && !wire:
			if val.Type != gjson.True && val.Type != gjson.False {
				err = docErr(p, "attached must be a boolean")
			}
			meta.Attached = val.Type == gjson.True
		case k == "display" && !wire:
			var d string
			str(&d)
			meta.Display = Some(d)
		case k == "digest" && !wire:
			str(&meta.Digest)
		case k == "extra" && !wire:
			extra, err = unpackExtra(extra, val, p, itemNames)
		default:
			extra = appendMember(extra, key.Raw, val.Raw)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if kind == KindEncrypted && !found["data"] {
		return nil, docErr(ptr+"/data", "a reasoning.encrypted item needs data")
	}
	if kind == KindSummary && !found["summary"] {
		return nil, docErr(ptr+"/summary", "a reasoning.summary item needs summary")
	}
	if len(extra) > 0 {
		meta.Extra = append(append([]byte{'{'}, extra...), '}')
	}
	switch kind {
	case KindText:
		text.ItemMeta = meta
		return text, nil
	case KindSummary:
		sum.ItemMeta = meta
		return sum, nil
	default:
		enc.ItemMeta = meta
		return enc, nil
	}
}

// unpackExtra adds the members of a document's "extra" object (provider
// members named like the document's own) to extra. Only such names may be
// there: any other would stand beside the block's members.
func unpackExtra(extra []byte, v gjson.Result, ptr string, names []string) ([]byte, error) {
	if !v.IsObject() {
		return extra, docErr(ptr, "extra must be an object")
	}
	var err error
	v.ForEach(func(k, val gjson.Result) bool {
		for _, n := range names {
			if k.Str == n {
				extra = appendMember(extra, k.Raw, val.Raw)
				return true
			}
		}
		err = docErr(ptr+"/"+escapePointer(k.Str), "extra holds only members named like the document's own (%q is not)", k.Str)
		return false
	})
	return extra, err
}

func appendMember(dst []byte, rawKey, rawVal string) []byte {
	if len(dst) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, rawKey...)
	dst = append(dst, ':')
	return append(dst, rawVal...)
}

func escapePointer(k string) string {
	out := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, k[i])
		}
	}
	return string(out)
}
