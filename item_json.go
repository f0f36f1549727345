package replay

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
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

func appendItem(dst []byte, it ReasoningItem, wire bool) []byte {
	if o, ok := it.(*Opaque); ok {
		if wire {
			return append(dst, o.Raw...)
		}
		return appendOpaque(dst, o)
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
	if wire {
		dst = jsonw.Members(dst, m.Extra)
	} else {
		dst = appendLibrary(dst, m)
		dst = appendExtra(dst, m.Extra, itemNames)
	}
	return append(dst, '}')
}

// appendLibrary writes this library's own members of an item.
func appendLibrary(dst []byte, m *ItemMeta) []byte {
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
	return dst
}

// hasLibrary reports whether m carries any of this library's own members.
func hasLibrary(m *ItemMeta) bool {
	return m.Unfinished || m.Attached || m.Display.IsPresent() || m.Digest != ""
}

// appendOpaque writes an item of a type this library does not know. Its
// object is the provider's, written byte for byte: as it is when the item
// carries none of this library's members and none of the object's members
// is named like one of them; otherwise wrapped, as the item's "extra"
// beside its type and this library's members, so that neither is taken
// for the other.
func appendOpaque(dst []byte, o *Opaque) []byte {
	if !hasLibrary(&o.ItemMeta) && !jsonw.HasMember(view(o.Raw), libraryNames...) {
		return append(dst, o.Raw...)
	}
	dst = append(dst, `{"type":`...)
	dst = jsonw.String(dst, o.Type)
	dst = appendLibrary(dst, &o.ItemMeta)
	dst = jsonw.Key(dst, "extra")
	dst = append(dst, o.Raw...)
	return append(dst, '}')
}

// The member names of each block kind in the document form, "extra"
// included: a block whose provider members (its Extra) include one of
// these names has them all written in its "extra" object instead of beside
// its own, so that the document never holds a name twice and never has a
// provider member taken for one of the library's.
var (
	itemNames     = []string{"type", "text", "summary", "data", "signature", "id", "format", "index", "unfinished", "attached", "display", "digest", "extra"}
	textNames     = []string{"type", "text", "id", "extra"}
	toolCallNames = []string{"type", "id", "name", "arguments", "item_id", "unfinished", "extra"}
	// compactionNames are the compaction block's own member names.
	compactionNames = []string{"type", "format", "id", "content", "signature", "data", "unfinished", "extra"}
	// libraryNames are this library's own members of an item.
	libraryNames = []string{"unfinished", "attached", "display", "digest", "extra"}
)

// appendExtra writes a block's provider members (extra, one JSON object,
// kept as the provider sent them) in the document form, byte for byte:
// beside the block's own members when the reader rebuilds exactly these
// bytes from them (no name of names among them, no white space between
// them); otherwise the whole object as the block's "extra" member. Either
// way nothing is compacted, reordered or escaped again.
func appendExtra(dst, extra []byte, names []string) []byte {
	if len(extra) == 0 {
		return dst
	}
	if jsonw.Rebuilt(view(extra), names...) {
		return jsonw.Members(dst, extra)
	}
	dst = jsonw.Key(dst, "extra")
	return append(dst, extra...)
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

// UnmarshalItem reads the document form of one reasoning item, as
// [ReasoningItem].AppendJSON writes it or as any earlier version of this library wrote
// it: an item document carries no version of its own, and is read by the
// rules that read every version (see the document format policy in
// package schema).
func UnmarshalItem(data []byte) (ReasoningItem, error) {
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	return parseItem(gjson.Parse(view(data)), formItem, "")
}

// UnmarshalItemWire reads the wire form of one reasoning item: a
// reasoning_details entry. Members this library does not know (including
// ones named like its own document members) are kept in Extra. A detail of
// an unknown type becomes an [*Opaque] item. data must be valid JSON.
func UnmarshalItemWire(data []byte) (ReasoningItem, error) {
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	return parseItem(gjson.Parse(view(data)), formWire, "")
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

// form says which rules read an object's members.
type form uint8

const (
	// formWire: a provider's reasoning_details entry, where every member
	// not of the item's kind is the provider's.
	formWire form = iota
	// formItem: the item document, which carries no version: read by the
	// rules that read every version's items.
	formItem
	// formV1: a version-1 turn document. Builds of that version wrote the
	// provider's members named like this library's own beside the item
	// (before "extra" held them), and the object of an item of a type kept
	// whole as it came, with no library member.
	formV1
	// formV2: a version-2 turn document.
	formV2
)

// parseItem reads a reasoning item object by the rules of form f.
func parseItem(v gjson.Result, f form, ptr string) (ReasoningItem, error) {
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
		return parseOpaque(v, typ.Str, f, ptr)
	}
	r := &itemReader{kind: kind, form: f, found: map[string]bool{}}
	var err error
	v.ForEach(func(key, val gjson.Result) bool {
		err = r.member(key, val, ptr+"/"+escapePointer(key.Str))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return r.item(ptr)
}

// parseOpaque reads an item of a type this library does not know. Its
// object is the provider's, kept whole, with its common members read for
// convenience when they have their usual types (whatever they hold, the
// object is kept and written back as it came). In the document form (but
// for version 1, which never wrapped one) an item that carries this
// library's members is written wrapped: its type, those members, and the
// provider's object as "extra" (see appendOpaque).
func parseOpaque(v gjson.Result, typ string, f form, ptr string) (ReasoningItem, error) {
	if !validItemType(typ) {
		return nil, docErr(ptr+"/type", "a reasoning item's type must be reasoning.<kind> (letters, digits, _ . -), not %q", typ)
	}
	o := &Opaque{Type: clone(typ)}
	raw := v
	if f == formItem || f == formV2 {
		if inner, ok := wrappedOpaque(v, typ, &o.ItemMeta); ok {
			raw = inner
		}
	}
	o.Raw = cloneBytes(raw.Raw)
	if fm := raw.Get("format"); fm.Type == gjson.String {
		o.Format = Format(owned(fm))
	}
	if id := raw.Get("id"); id.Type == gjson.String {
		o.ID = Some(owned(id))
	}
	if ix := raw.Get("index"); ix.Type == gjson.Number {
		if n, ok := jsonInt(ix.Raw); ok {
			o.Index = Some(n)
		}
	}
	return o, nil
}

// wrappedOpaque reports whether v is an item of a type kept whole written
// wrapped: its type, this library's members (of their types) and "extra",
// an object of the same type; it reads the library's members into m and
// returns the provider's object. An object of any other shape is the
// provider's own: the writer wraps every object that has a member named
// like the library's, so that no object written bare looks wrapped.
func wrappedOpaque(v gjson.Result, typ string, m *ItemMeta) (gjson.Result, bool) {
	inner := v.Get("extra")
	if !inner.IsObject() || inner.Get("type").Type != gjson.String || inner.Get("type").Str != typ {
		return inner, false
	}
	var lib ItemMeta
	ok := true
	v.ForEach(func(key, val gjson.Result) bool {
		switch key.Str {
		case "type", "extra":
		default:
			ok = readLibrary(&lib, key.Str, val)
		}
		return ok
	})
	if !ok {
		return inner, false
	}
	m.Unfinished, m.Attached, m.Display, m.Digest = lib.Unfinished, lib.Attached, lib.Display, lib.Digest
	return inner, true
}

// readLibrary reads the library member k of an item into m when val has
// the member's type ("unfinished" and "attached" booleans, "display" a
// string, "digest" sha256: and 64 lowercase hex digits), and reports
// whether it did. A member of that name and another type is not the
// library's (builds of version 1 wrote the provider's members of these
// names beside the item): the caller keeps it as the provider's.
func readLibrary(m *ItemMeta, k string, val gjson.Result) bool {
	switch k {
	case "unfinished", "attached":
		if val.Type != gjson.True && val.Type != gjson.False {
			return false
		}
		if k == "unfinished" {
			m.Unfinished = val.Type == gjson.True
		} else {
			m.Attached = val.Type == gjson.True
		}
	case "display":
		if val.Type != gjson.String {
			return false
		}
		m.Display = Some(owned(val))
	case "digest":
		if val.Type != gjson.String || !validDigest(val.Str) {
			return false
		}
		m.Digest = owned(val)
	default:
		return false
	}
	return true
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
	form  form
	meta  ItemMeta
	extra providerMembers
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
		if val.Type == gjson.Null && r.form == formWire {
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
	case r.form == formWire:
	case k == "extra":
		if r.extra.take(val, r.form, itemNames) {
			return nil
		}
	case readLibrary(&r.meta, k, val):
		return nil
	}
	r.extra.add(key, val)
	return nil
}

func (r *itemReader) format(key, val gjson.Result, p string) error {
	switch val.Type {
	case gjson.String:
		r.meta.Format = Format(owned(val))
	case gjson.Null:
		// A null format says nothing; keep it verbatim.
		r.extra.add(key, val)
	default:
		return docErr(p, "format must be a string")
	}
	return nil
}

// item checks the kind's required members and builds the item.
func (r *itemReader) item(ptr string) (ReasoningItem, error) {
	if r.kind == KindEncrypted && !r.found["data"] {
		return nil, docErr(ptr+"/data", "a reasoning.encrypted item needs data")
	}
	if r.kind == KindText && r.form != formWire && !r.found["text"] {
		return nil, docErr(ptr+"/text", "a reasoning.text item needs text")
	}
	if r.kind == KindSummary && !r.found["summary"] {
		return nil, docErr(ptr+"/summary", "a reasoning.summary item needs summary")
	}
	if r.signature.Value() != "" && r.textRaw != "" && jsonw.Lone(r.textRaw) {
		return nil, loneErr(r.textPtr)
	}
	r.meta.Extra = r.extra.json()
	switch r.kind {
	case KindText:
		return &ReasoningText{ItemMeta: r.meta, Text: r.text, Signature: r.signature}, nil
	case KindSummary:
		return &Summary{ItemMeta: r.meta, Summary: r.summary}, nil
	}
	return &Encrypted{ItemMeta: r.meta, Data: r.data}, nil
}

// providerMembers collects a block's provider members as a reader meets
// them: beside the block's own, and in its "extra" object.
type providerMembers struct {
	members []byte // "name":value pairs joined by commas, in document order
	obj     string // the "extra" object as it came
	beside  bool   // a provider member stood beside the block's own
}

// add keeps a member that stood beside the block's own.
func (pm *providerMembers) add(key, val gjson.Result) {
	pm.members = appendMember(pm.members, key.Raw, val.Raw)
	pm.beside = true
}

// take takes val, the block's "extra" member, as the object holding the
// provider's members named like the block's own, and reports whether it
// did. In a version-1 document it holds only such names (names), and any
// other "extra" is a provider member of that name, which builds of that
// version wrote beside the block's own; since version 2 it is the
// block's whole Extra, byte for byte. In any version a member "extra" that
// is not an object is the provider's.
func (pm *providerMembers) take(val gjson.Result, f form, names []string) bool {
	if !val.IsObject() || pm.obj != "" {
		return false
	}
	if f == formV1 {
		ok := true
		val.ForEach(func(k, _ gjson.Result) bool {
			ok = slices.Contains(names, k.Str)
			return ok
		})
		if !ok {
			return false
		}
	}
	val.ForEach(func(k, v gjson.Result) bool {
		pm.members = appendMember(pm.members, k.Raw, v.Raw)
		return true
	})
	pm.obj = val.Raw
	return true
}

// json returns the provider's members as one JSON object: the "extra"
// object as it came when it held them all, else rebuilt from the members
// in document order; nil when there are none.
func (pm *providerMembers) json() json.RawMessage {
	if pm.obj != "" && !pm.beside {
		return cloneBytes(pm.obj)
	}
	return wrapObject(pm.members)
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
