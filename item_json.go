package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	iview "github.com/reasonreplay/replay/internal/view"
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
	// compactionNames are the compaction block's own member names.
	compactionNames = []string{"type", "format", "id", "content", "signature", "data", "unfinished", "extra"}
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
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	return parseItem(gjson.Parse(view(data)), false, "")
}

// UnmarshalItemWire reads the wire form of one reasoning item: a
// reasoning_details entry. Members this library does not know (including
// ones named like its own document members) are kept in Extra. A detail of
// an unknown type becomes an [*Opaque] item. data must be valid JSON.
func UnmarshalItemWire(data []byte) (ReasoningItem, error) {
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	return parseItem(gjson.Parse(view(data)), true, "")
}

// checkJSON refuses data unless it is valid JSON text (see jsonw.Valid):
// UTF-8, as RFC 8259 requires (an id or signature with invalid bytes could
// not be kept byte-exact), nested within the depth limit, with no member
// name repeated in its object. The error says why, and names a repeated
// member by its pointer; what names the document kind.
func checkJSON(data []byte, what string) error {
	if jsonw.ValidBytes(data) {
		return nil
	}
	why := jsonw.Explain(string(data))
	ptr := ""
	if i := strings.Index(why, "/"); i >= 0 && strings.HasPrefix(why, "the member name at ") {
		ptr = why[len("the member name at "):strings.Index(why, " repeats")]
	}
	return &Error{Event: -1, Pointer: ptr, Err: fmt.Errorf("%w: %s must be valid JSON: %s", ErrMalformed, what, why)}
}

func docErr(ptr, format string, args ...any) error {
	return &Error{Event: -1, Pointer: ptr, Err: fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))}
}

// view is data as a string, without a copy: the readers parse the
// caller's bytes in place and copy what they keep (owned, cloneBytes,
// appendMember), so that nothing they return shares data's memory.
func view(data []byte) string { return iview.String(data) }

// owned returns the value of the string v as a string of its own. gjson
// gives a view of the document for a literal with no escapes, copied here;
// for one with escapes it has already made a new string (unescaped), kept
// as it is instead of being copied again.
func owned(v gjson.Result) string {
	s := v.Str
	if s == "" {
		return ""
	}
	if iview.Within(v.Raw, s) {
		return clone(s)
	}
	return s
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
	kind := ItemKind(typ.Str)
	switch kind {
	case KindText, KindSummary, KindEncrypted:
	default:
		if !wire {
			// Kept whole, but its common and library members are
			// checked as any item's are: the schema holds them to the
			// same types.
			if _, err := readMembers(v, ItemKind(""), wire, ptr); err != nil {
				return nil, err
			}
		}
		return parseOpaque(v, typ.Str, ptr)
	}
	r, err := readMembers(v, kind, wire, ptr)
	if err != nil {
		return nil, err
	}
	return r.item(ptr)
}

// readMembers reads every member of the item object v as an item of kind.
func readMembers(v gjson.Result, kind ItemKind, wire bool, ptr string) (*itemReader, error) {
	r := &itemReader{kind: kind, wire: wire, found: map[string]bool{}}
	var err error
	v.ForEach(func(key, val gjson.Result) bool {
		err = r.member(key, val, ptr+"/"+escapePointer(key.Str))
		return err == nil
	})
	return r, err
}

// parseOpaque reads an item of a type this library does not know: kept
// whole, with its common members read for convenience.
func parseOpaque(v gjson.Result, typ, ptr string) (ReasoningItem, error) {
	if !validItemType(typ) {
		return nil, docErr(ptr+"/type", "a reasoning item's type must be reasoning.<kind> (letters, digits, _ . -), not %q", typ)
	}
	o := &Opaque{Type: clone(typ), Raw: cloneBytes(v.Raw)}
	if f := v.Get("format"); f.Type == gjson.String {
		o.Format = Format(owned(f))
	}
	if id := v.Get("id"); id.Type == gjson.String {
		o.ID = Some(owned(id))
	}
	if ix := v.Get("index"); ix.Type == gjson.Number {
		o.Index = Some(int(ix.Int()))
	}
	return o, nil
}

// validItemType reports whether typ is "reasoning." followed by one or
// more ASCII letters, digits, '_', '.' or '-' (the schema's pattern).
func validItemType(typ string) bool {
	kind, ok := strings.CutPrefix(typ, "reasoning.")
	if !ok || kind == "" {
		return false
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// itemReader collects the members of one text, summary or encrypted item.
type itemReader struct {
	kind  ItemKind
	wire  bool
	meta  ItemMeta
	extra []byte
	found map[string]bool
	// The kind's own members.
	text, summary, data string
	signature           Opt[string]
	// textRaw and textPtr are the text member as it came, and where: text
	// under a signature is checked once the signature is known.
	textRaw, textPtr string
}

// member reads one member of the item object; p is its pointer.
func (r *itemReader) member(key, val gjson.Result, p string) error {
	k := key.Str
	if r.found[k] {
		return docErr(p, "duplicate member %q", k)
	}
	r.found[k] = true
	switch {
	case k == "type":
		return nil
	case k == "format":
		return r.format(key, val, p)
	case k == "id":
		if err := refuseLone(val, p); err != nil {
			return err
		}
		return readOptString(&r.meta.ID, val, p, k)
	case k == "index":
		return readIndex(&r.meta.Index, val, p)
	case k == "text" && r.kind == KindText:
		if val.Type == gjson.Null && r.wire {
			return nil
		}
		r.textRaw, r.textPtr = val.Raw, p
		return readString(&r.text, val, p, k)
	case k == "signature" && r.kind == KindText:
		if err := refuseLone(val, p); err != nil {
			return err
		}
		return readOptString(&r.signature, val, p, k)
	case k == "summary" && r.kind == KindSummary:
		return readString(&r.summary, val, p, k)
	case k == "data" && r.kind == KindEncrypted:
		if err := refuseLone(val, p); err != nil {
			return err
		}
		return readString(&r.data, val, p, k)
	case !r.wire && isLibraryMember(k):
		return r.library(k, val, p)
	}
	r.extra = appendMember(r.extra, key.Raw, val.Raw)
	return nil
}

func (r *itemReader) format(key, val gjson.Result, p string) error {
	switch val.Type {
	case gjson.String:
		r.meta.Format = Format(owned(val))
	case gjson.Null:
		// A null format says nothing; keep it verbatim.
		r.extra = appendMember(r.extra, key.Raw, val.Raw)
	default:
		return docErr(p, "format must be a string")
	}
	return nil
}

// isLibraryMember reports whether k is one of this library's own members
// of the document form.
func isLibraryMember(k string) bool {
	switch k {
	case "unfinished", "attached", "display", "digest", "extra":
		return true
	}
	return false
}

// library reads one of this library's own members (document form only).
func (r *itemReader) library(k string, val gjson.Result, p string) error {
	switch k {
	case "unfinished":
		return readBool(&r.meta.Unfinished, val, p, k)
	case "attached":
		return readBool(&r.meta.Attached, val, p, k)
	case "display":
		var d string
		err := readString(&d, val, p, k)
		r.meta.Display = Some(d)
		return err
	case "digest":
		if err := readString(&r.meta.Digest, val, p, k); err != nil {
			return err
		}
		if !validDigest(r.meta.Digest) {
			return docErr(p, "digest must be sha256: and 64 lowercase hex digits")
		}
		return nil
	}
	var err error
	r.extra, err = unpackExtra(r.extra, val, p, itemNames)
	return err
}

// item checks the kind's required members and builds the item.
func (r *itemReader) item(ptr string) (ReasoningItem, error) {
	if r.kind == KindEncrypted && !r.found["data"] {
		return nil, docErr(ptr+"/data", "a reasoning.encrypted item needs data")
	}
	if r.kind == KindText && !r.wire && !r.found["text"] {
		return nil, docErr(ptr+"/text", "a reasoning.text item needs text")
	}
	if r.kind == KindSummary && !r.found["summary"] {
		return nil, docErr(ptr+"/summary", "a reasoning.summary item needs summary")
	}
	if r.signature.Value() != "" && r.textRaw != "" && jsonw.Lone(r.textRaw) {
		return nil, loneErr(r.textPtr)
	}
	if len(r.extra) > 0 {
		r.meta.Extra = append(append([]byte{'{'}, r.extra...), '}')
	}
	switch r.kind {
	case KindText:
		return &ReasoningText{ItemMeta: r.meta, Text: r.text, Signature: r.signature}, nil
	case KindSummary:
		return &Summary{ItemMeta: r.meta, Summary: r.summary}, nil
	}
	return &Encrypted{ItemMeta: r.meta, Data: r.data}, nil
}

// refuseLone refuses a string member that holds a surrogate escape with no
// partner: read, it would become U+FFFD, and the member's bytes (a
// signature, ciphertext, id or signed text) would not be the ones the
// issuer sent.
func refuseLone(val gjson.Result, p string) error {
	if val.Type == gjson.String && jsonw.Lone(val.Raw) {
		return loneErr(p)
	}
	return nil
}

func loneErr(p string) error {
	return docErr(p, "a lone surrogate escape (\\ud800-\\udfff with no partner) would alter these bytes")
}

func readString(dst *string, val gjson.Result, p, k string) error {
	if val.Type != gjson.String {
		return docErr(p, "%s must be a string", k)
	}
	*dst = owned(val)
	return nil
}

func readOptString(dst *Opt[string], val gjson.Result, p, k string) error {
	switch val.Type {
	case gjson.String:
		*dst = Some(owned(val))
	case gjson.Null:
		*dst = NullOf[string]()
	default:
		return docErr(p, "%s must be a string or null", k)
	}
	return nil
}

func readBool(dst *bool, val gjson.Result, p, k string) error {
	if val.Type != gjson.True && val.Type != gjson.False {
		return docErr(p, "%s must be a boolean", k)
	}
	*dst = val.Type == gjson.True
	return nil
}

// readIndex reads an index: an integer, written as JSON allows (1, 1.0,
// 1e2), or null. JSON Schema's "integer" is any number with no fraction,
// and the library reads what the schema accepts.
func readIndex(dst *Opt[int], val gjson.Result, p string) error {
	switch val.Type {
	case gjson.Number:
		n, ok := jsonInt(val.Raw)
		if !ok {
			return docErr(p, "index must be an integer")
		}
		*dst = Some(n)
	case gjson.Null:
		*dst = NullOf[int]()
	default:
		return docErr(p, "index must be an integer or null")
	}
	return nil
}

// jsonInt reads a JSON number that has no fraction (1, -2, 1.0, 1e2) and
// fits an int32 either way.
func jsonInt(raw string) (int, bool) {
	if n, err := strconv.Atoi(raw); err == nil {
		return n, n >= math.MinInt32 && n <= math.MaxInt32
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// validDigest reports whether d is a digest this library writes:
// "sha256:" and 64 lowercase hex digits.
func validDigest(d string) bool {
	if len(d) != len("sha256:")+64 || d[:7] != "sha256:" {
		return false
	}
	for i := 7; i < len(d); i++ {
		if c := d[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
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
