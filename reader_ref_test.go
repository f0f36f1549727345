package replay

// This file holds the gjson-based reader of turn and item documents as it
// was before the reader was rewritten for speed: the reference that
// FuzzUnmarshalTurn and FuzzUnmarshalItem compare the reader with, member
// for member and error for error. It is test code only.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/reasonreplay/replay/internal/jsonw"
	iview "github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// unmarshalTurnRef reads a turn document. Errors are *[Error] values whose
// Pointer names the offending member.
func unmarshalTurnRef(data []byte) (*Turn, error) {
	if err := checkJSON(data, "a turn document"); err != nil {
		return nil, err
	}
	root := gjson.Parse(view(data))
	if !root.IsObject() {
		return nil, docErr("", "a turn document must be a JSON object")
	}
	ver := root.Get("version")
	if !ver.Exists() {
		return nil, docErr("/version", "a turn document needs a version")
	}
	f := formV2
	switch v, ok := jsonInt(ver.Raw); {
	case ver.Type != gjson.Number || !ok || v < 1 || v > DocumentVersion:
		return nil, &Error{Event: -1, Pointer: "/version", Err: fmt.Errorf("%w: %s (this library reads 1 to %d)", ErrVersion, ver.Raw, DocumentVersion)}
	case v == 1:
		f = formV1
	}
	t := &Turn{}
	if p := root.Get("provenance"); p.Exists() {
		if !p.IsObject() {
			return nil, docErr("/provenance", "provenance must be an object")
		}
		if err := parseProvenanceRef(p, f, &t.Provenance); err != nil {
			return nil, err
		}
	}
	c := root.Get("complete")
	if c.Type != gjson.True && c.Type != gjson.False {
		return nil, docErr("/complete", "complete must be a boolean")
	}
	t.Complete = c.Type == gjson.True
	if fr := root.Get("finish_reason"); fr.Exists() {
		if fr.Type != gjson.String {
			return nil, docErr("/finish_reason", "finish_reason must be a string")
		}
		t.FinishReason = ownedRef(fr)
	}
	if e := root.Get("error"); e.Exists() {
		pe, err := parseProviderErrorRef(e)
		if err != nil {
			return nil, err
		}
		t.Error = pe
	}
	if u := root.Get("usage"); u.Exists() && u.Type != gjson.Null {
		t.Usage = cloneBytes(u.Raw)
	}
	if tr := root.Get("transformations"); tr.Exists() {
		if !tr.IsArray() {
			return nil, docErr("/transformations", "transformations must be an array")
		}
		var err error
		i := 0
		tr.ForEach(func(_, v gjson.Result) bool {
			var x Transformation
			x, err = parseTransformationRef(v, f, "/transformations/"+strconv.Itoa(i))
			t.Transformations = append(t.Transformations, x)
			i++
			return err == nil
		})
		if err != nil {
			return nil, err
		}
	}
	blocks := root.Get("blocks")
	if !blocks.IsArray() {
		return nil, docErr("/blocks", "a turn document needs a blocks array")
	}
	var err error
	i := 0
	blocks.ForEach(func(_, b gjson.Result) bool {
		var blk Block
		blk, err = parseBlockRef(b, f, "/blocks/"+strconv.Itoa(i))
		if err != nil {
			return false
		}
		t.Blocks = append(t.Blocks, blk)
		i++
		return true
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// parseProvenanceRef reads the provenance object: its members are all
// strings, and no other member is allowed (the schema says so too).
// "issuer" is the name "account" had before; a document holds one or the
// other. A version-1 document's "prefix_hash" may have
// been made by either definition that version's builds used, so it is
// read as the LegacyPrefixHash.
func parseProvenanceRef(p gjson.Result, f form, dst *Provenance) error {
	var issuer string
	prefix := &dst.PrefixHash
	if f == formV1 {
		prefix = &dst.LegacyPrefixHash
	}
	fields := map[string]*string{
		"api": &dst.API, "provider": &dst.Provider, "upstream": &dst.Upstream,
		"model": &dst.Model, "account": &dst.Account, "issuer": &issuer, "prefix_hash": prefix,
		"legacy_prefix_hash": &dst.LegacyPrefixHash,
		"requested_model":    &dst.RequestedModel, "chain_hash": &dst.ChainHash,
	}
	var err error
	p.ForEach(func(k, v gjson.Result) bool {
		ptr := "/provenance/" + escapePointer(k.Str)
		f, ok := fields[k.Str]
		switch {
		case !ok:
			err = docErr(ptr, "provenance has no member %q", k.Str)
		case v.Type != gjson.String:
			err = docErr(ptr, "%s must be a string", k.Str)
		default:
			*f = ownedRef(v)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if f == formV1 && p.Get("legacy_prefix_hash").Exists() {
		return docErr("/provenance/legacy_prefix_hash", "a version-1 document has no legacy_prefix_hash (its prefix_hash is read as one)")
	}
	if p.Get("issuer").Exists() {
		if p.Get("account").Exists() {
			return docErr("/provenance/issuer", "issuer is the former name of account: a document has one or the other")
		}
		dst.Account = issuer
	}
	return nil
}

func parseProviderErrorRef(e gjson.Result) (*ProviderError, error) {
	if !e.IsObject() {
		return nil, docErr("/error", "error must be an object")
	}
	var unknown *string
	e.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "api", "status", "type", "code", "message", "provider", "raw":
			return true
		}
		unknown = &k.Str
		return false
	})
	if unknown != nil {
		return nil, docErr("/error/"+escapePointer(*unknown), "error has no member %q (it would be lost)", *unknown)
	}
	pe := &ProviderError{}
	if s := e.Get("status"); s.Exists() {
		n, ok := jsonInt(s.Raw)
		if s.Type != gjson.Number || !ok {
			return nil, docErr("/error/status", "status must be an integer")
		}
		pe.Status = n
	}
	for _, f := range [...]struct {
		k   string
		dst *string
	}{
		{"api", &pe.API}, {"type", &pe.Type}, {"code", &pe.Code}, {"message", &pe.Message},
		{"provider", &pe.Provider}, {"raw", &pe.Raw},
	} {
		v := e.Get(f.k)
		if !v.Exists() {
			continue
		}
		if v.Type != gjson.String {
			return nil, docErr("/error/"+f.k, "%s must be a string", f.k)
		}
		*f.dst = ownedRef(v)
	}
	return pe, nil
}

func parseBlockRef(b gjson.Result, f form, ptr string) (Block, error) {
	if !b.IsObject() {
		return nil, docErr(ptr, "a block must be a JSON object")
	}
	typ := b.Get("type")
	if typ.Type != gjson.String {
		return nil, docErr(ptr+"/type", "a block needs a string type")
	}
	switch typ.Str {
	case "text":
		return parseTextRef(b, f, ptr)
	case "tool_call":
		return parseToolCallRef(b, f, ptr)
	case "native":
		return parseNativeRef(b, ptr)
	case "compaction":
		return parseCompactionRef(b, f, ptr)
	}
	if len(typ.Str) > len("reasoning.") && typ.Str[:len("reasoning.")] == "reasoning." {
		return parseItemRef(b, f, ptr)
	}
	return nil, docErr(ptr+"/type", "unknown block type %q", typ.Str)
}

// parseTextRef reads a text block.
func parseTextRef(b gjson.Result, f form, ptr string) (Block, error) {
	x := &Text{}
	var extra providerMembersRef
	var err error
	b.ForEach(func(key, val gjson.Result) bool {
		switch key.Str {
		case "type":
		case "text":
			if val.Type != gjson.String {
				err = docErr(ptr+"/text", "text must be a string")
				return false
			}
			x.Text = ownedRef(val)
		case "id":
			if val.Type != gjson.String {
				err = docErr(ptr+"/id", "id must be a string")
				return false
			}
			x.ID = ownedRef(val)
		default:
			if key.Str != "extra" || !extra.take(val, f, textNames) {
				extra.add(key, val)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if !b.Get("text").Exists() {
		return nil, docErr(ptr+"/text", "a text block needs text")
	}
	if x.Extra, err = extra.json(ptr); err != nil {
		return nil, err
	}
	return x, nil
}

// parseToolCallRef reads a tool_call block.
func parseToolCallRef(b gjson.Result, f form, ptr string) (Block, error) {
	x := &ToolCall{}
	var extra providerMembersRef
	var err error
	b.ForEach(func(key, val gjson.Result) bool {
		p := ptr + "/" + escapePointer(key.Str)
		strField := func(dst *string) bool {
			if val.Type != gjson.String {
				err = docErr(p, "%s must be a string", key.Str)
				return false
			}
			*dst = ownedRef(val)
			return true
		}
		switch key.Str {
		case "type":
		case "id":
			return strField(&x.ID)
		case "name":
			return strField(&x.Name)
		case "arguments":
			return strField(&x.Arguments)
		case "item_id":
			return strField(&x.ItemID)
		case "unfinished":
			// The library's when it is a boolean, as an item's is.
			if val.Type != gjson.True && val.Type != gjson.False {
				extra.add(key, val)
				return true
			}
			x.Unfinished = val.Type == gjson.True
		default:
			if key.Str != "extra" || !extra.take(val, f, toolCallNames) {
				extra.add(key, val)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, k := range [...]string{"id", "name", "arguments"} {
		if !b.Get(k).Exists() {
			return nil, docErr(ptr+"/"+k, "a tool_call block needs %s", k)
		}
	}
	if x.Extra, err = extra.json(ptr); err != nil {
		return nil, err
	}
	return x, nil
}

// parseNativeRef reads a native block.
func parseNativeRef(b gjson.Result, ptr string) (Block, error) {
	x := &Native{}
	k := b.Get("kind")
	if k.Type != gjson.String {
		return nil, docErr(ptr+"/kind", "a native block needs a string kind")
	}
	x.Kind = ownedRef(k)
	r := b.Get("raw")
	if !r.Exists() {
		return nil, docErr(ptr+"/raw", "a native block needs raw")
	}
	x.Raw = cloneBytes(r.Raw)
	if u := b.Get("unfinished"); u.Exists() {
		if u.Type != gjson.True && u.Type != gjson.False {
			return nil, docErr(ptr+"/unfinished", "unfinished must be a boolean")
		}
		x.Unfinished = u.Type == gjson.True
	}
	return x, nil
}

// parseCompactionRef reads a compaction block.
func parseCompactionRef(b gjson.Result, f form, ptr string) (Block, error) {
	x := &Compaction{}
	var extra providerMembersRef
	var err error
	b.ForEach(func(key, val gjson.Result) bool {
		p := ptr + "/" + escapePointer(key.Str)
		switch key.Str {
		case "type":
		case "format":
			var f string
			err = readStringRef(&f, val, p, key.Str)
			x.Format = Format(f)
		case "id":
			if err = refuseLoneRef(val, p); err == nil {
				err = readStringRef(&x.ID, val, p, key.Str)
			}
		case "content":
			if err = refuseLoneRef(val, p); err == nil {
				err = readOptStringRef(&x.Content, val, p, key.Str)
			}
		case "signature":
			if err = refuseLoneRef(val, p); err == nil {
				err = readOptStringRef(&x.Signature, val, p, key.Str)
			}
		case "data":
			if err = refuseLoneRef(val, p); err == nil {
				err = readStringRef(&x.Data, val, p, key.Str)
			}
		case "unfinished":
			// The library's when it is a boolean, as an item's is.
			if val.Type != gjson.True && val.Type != gjson.False {
				extra.add(key, val)
			} else {
				x.Unfinished = val.Type == gjson.True
			}
		default:
			if key.Str != "extra" || !extra.take(val, f, compactionNames) {
				extra.add(key, val)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if x.Extra, err = extra.json(ptr); err != nil {
		return nil, err
	}
	return x, nil
}

// parseTransformationRef reads one entry of a turn's transformations: a type,
// an optional reason and path (strings), and other members kept in Extra
// (in its "extra" object when one is named like these).
func parseTransformationRef(v gjson.Result, f form, ptr string) (Transformation, error) {
	var x Transformation
	if !v.IsObject() {
		return x, docErr(ptr, "a transformation must be an object")
	}
	for _, fl := range [...]struct {
		k   string
		dst *string
		req bool
	}{{"type", &x.Type, true}, {"reason", &x.Reason, false}, {"path", &x.Path, false}} {
		m := v.Get(fl.k)
		if !m.Exists() && !fl.req {
			continue
		}
		if m.Type != gjson.String {
			return x, docErr(ptr+"/"+fl.k, "%s must be a string", fl.k)
		}
		*fl.dst = ownedRef(m)
	}
	var extra providerMembersRef
	v.ForEach(func(key, val gjson.Result) bool {
		switch key.Str {
		case "type", "reason", "path":
		default:
			if key.Str != "extra" || !extra.take(val, f, transformationNames) {
				extra.add(key, val)
			}
		}
		return true
	})
	var err error
	if x.Extra, err = extra.json(ptr); err != nil {
		return Transformation{}, err
	}
	return x, nil
}

// unmarshalItemRef reads the document form of one reasoning item, as
// [ReasoningItem].AppendJSON writes it or as any earlier version of this library wrote
// it: an item document carries no version of its own, and is read by the
// rules that read every version (see the document format policy in
// package schema).
func unmarshalItemRef(data []byte) (ReasoningItem, error) {
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	return parseItemRef(gjson.Parse(view(data)), formItem, "")
}

// unmarshalItemWireRef reads the wire form of one reasoning item: a
// reasoning_details entry. Members this library does not know (including
// ones named like its own document members) are kept in Extra. A detail of
// an unknown type becomes an [*Opaque] item. data must be valid JSON.
func unmarshalItemWireRef(data []byte) (ReasoningItem, error) {
	if err := checkJSON(data, "a reasoning item"); err != nil {
		return nil, err
	}
	return parseItemRef(gjson.Parse(view(data)), formWire, "")
}

// parseItemRef reads a reasoning item object by the rules of form f.
func parseItemRef(v gjson.Result, f form, ptr string) (ReasoningItem, error) {
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
		return parseOpaqueRef(v, typ.Str, f, ptr)
	}
	r := &itemReaderRef{kind: kind, form: f, found: map[string]bool{}}
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

// parseOpaqueRef reads an item of a type this library does not know. Its
// object is the provider's, kept whole, with its common members read for
// convenience when they have their usual types (whatever they hold, the
// object is kept and written back as it came). In the document form (but
// for version 1, which never wrapped one) an item that carries this
// library's members is written wrapped: its type, those members, and the
// provider's object as "extra" (see appendOpaque).
func parseOpaqueRef(v gjson.Result, typ string, f form, ptr string) (ReasoningItem, error) {
	if !validItemType(typ) {
		return nil, docErr(ptr+"/type", "a reasoning item's type must be reasoning.<kind> (letters, digits, _ . -), not %q", typ)
	}
	o := &Opaque{Type: clone(typ)}
	raw := v
	if f == formItem || f == formV2 {
		if inner, ok := wrappedOpaqueRef(v, typ, &o.ItemMeta); ok {
			raw = inner
		}
	}
	o.Raw = cloneBytes(raw.Raw)
	if fm := raw.Get("format"); fm.Type == gjson.String {
		o.Format = Format(ownedRef(fm))
	}
	if id := raw.Get("id"); id.Type == gjson.String {
		o.ID = Some(ownedRef(id))
	}
	if ix := raw.Get("index"); ix.Type == gjson.Number {
		if n, ok := jsonInt(ix.Raw); ok {
			o.Index = Some(n)
		}
	}
	return o, nil
}

// wrappedOpaqueRef reports whether v is an item of a type kept whole written
// wrapped: its type, this library's members (of their types) and "extra",
// an object of the same type; it reads the library's members into m and
// returns the provider's object. An object of any other shape is the
// provider's own: the writer wraps every object that has a member named
// like the library's, so that no object written bare looks wrapped.
func wrappedOpaqueRef(v gjson.Result, typ string, m *ItemMeta) (gjson.Result, bool) {
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
			ok = readLibraryRef(&lib, key.Str, val)
		}
		return ok
	})
	if !ok {
		return inner, false
	}
	m.Unfinished, m.Attached, m.Display, m.Digest = lib.Unfinished, lib.Attached, lib.Display, lib.Digest
	return inner, true
}

// readLibraryRef reads the library member k of an item into m when val has
// the member's type ("unfinished" and "attached" booleans, "display" a
// string, "digest" sha256: and 64 lowercase hex digits), and reports
// whether it did. A member of that name and another type is not the
// library's (builds of version 1 wrote the provider's members of these
// names beside the item): the caller keeps it as the provider's.
func readLibraryRef(m *ItemMeta, k string, val gjson.Result) bool {
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
		m.Display = Some(ownedRef(val))
	case "digest":
		if val.Type != gjson.String || !validDigest(val.Str) {
			return false
		}
		m.Digest = ownedRef(val)
	default:
		return false
	}
	return true
}

// refuseLoneRef refuses a string member that holds a surrogate escape with no
// partner: read, it would become U+FFFD, and the member's bytes (a
// signature, ciphertext, id or signed text) would not be the ones the
// issuer sent.
func refuseLoneRef(val gjson.Result, p string) error {
	if val.Type == gjson.String && jsonw.Lone(val.Raw) {
		return loneErr(p)
	}
	return nil
}

func readStringRef(dst *string, val gjson.Result, p, k string) error {
	if val.Type != gjson.String {
		return docErr(p, "%s must be a string", k)
	}
	*dst = ownedRef(val)
	return nil
}

func readOptStringRef(dst *Opt[string], val gjson.Result, p, k string) error {
	switch val.Type {
	case gjson.String:
		*dst = Some(ownedRef(val))
	case gjson.Null:
		*dst = NullOf[string]()
	default:
		return docErr(p, "%s must be a string or null", k)
	}
	return nil
}

// readIndexRef reads an index: an integer, written as JSON allows (1, 1.0,
// 1e2), or null. JSON Schema's "integer" is any number with no fraction,
// and the library reads what the schema accepts.
func readIndexRef(dst *Opt[int], val gjson.Result, p string) error {
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

// ownedRef returns the value of the string v as a string of its own. gjson
// gives a view of the document for a literal with no escapes, copied here;
// for one with escapes it has already made a new string (unescaped), kept
// as it is instead of being copied again.
func ownedRef(v gjson.Result) string {
	s := v.Str
	if s == "" {
		return ""
	}
	if iview.Within(v.Raw, s) {
		return clone(s)
	}
	return s
}

// itemReaderRef collects the members of one text, summary or encrypted item.
type itemReaderRef struct {
	kind  ItemKind
	form  form
	meta  ItemMeta
	extra providerMembersRef
	found map[string]bool
	// The kind's own members.
	text, summary, data string
	signature           Opt[string]
	// textRaw and textPtr are the text member as it came, and where: text
	// under a signature is checked once the signature is known.
	textRaw, textPtr string
}

// member reads one member of the item object; p is its pointer.
func (r *itemReaderRef) member(key, val gjson.Result, p string) error {
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
		if err := refuseLoneRef(val, p); err != nil {
			return err
		}
		return readOptStringRef(&r.meta.ID, val, p, k)
	case k == "index":
		return readIndexRef(&r.meta.Index, val, p)
	case k == "text" && r.kind == KindText:
		if val.Type == gjson.Null && r.form == formWire {
			return nil
		}
		r.textRaw, r.textPtr = val.Raw, p
		return readStringRef(&r.text, val, p, k)
	case k == "signature" && r.kind == KindText:
		if err := refuseLoneRef(val, p); err != nil {
			return err
		}
		return readOptStringRef(&r.signature, val, p, k)
	case k == "summary" && r.kind == KindSummary:
		return readStringRef(&r.summary, val, p, k)
	case k == "data" && r.kind == KindEncrypted:
		if err := refuseLoneRef(val, p); err != nil {
			return err
		}
		return readStringRef(&r.data, val, p, k)
	case r.form == formWire:
	case k == "extra":
		if r.extra.take(val, r.form, itemNames) {
			return nil
		}
	case readLibraryRef(&r.meta, k, val):
		return nil
	}
	r.extra.add(key, val)
	return nil
}

func (r *itemReaderRef) format(key, val gjson.Result, p string) error {
	switch val.Type {
	case gjson.String:
		r.meta.Format = Format(ownedRef(val))
	case gjson.Null:
		// A null format says nothing; keep it verbatim.
		r.extra.add(key, val)
	default:
		return docErr(p, "format must be a string")
	}
	return nil
}

// item checks the kind's required members and builds the item.
func (r *itemReaderRef) item(ptr string) (ReasoningItem, error) {
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
	var err error
	if r.meta.Extra, err = r.extra.json(ptr); err != nil {
		return nil, err
	}
	switch r.kind {
	case KindText:
		return &ReasoningText{ItemMeta: r.meta, Text: r.text, Signature: r.signature}, nil
	case KindSummary:
		return &Summary{ItemMeta: r.meta, Summary: r.summary}, nil
	}
	return &Encrypted{ItemMeta: r.meta, Data: r.data}, nil
}

// providerMembersRef collects a block's provider members as a reader meets
// them: beside the block's own, and in its "extra" object.
type providerMembersRef struct {
	members []byte // "name":value pairs joined by commas, in document order
	obj     string // the "extra" object as it came
	beside  bool   // a provider member stood beside the block's own
}

// add keeps a member that stood beside the block's own.
func (pm *providerMembersRef) add(key, val gjson.Result) {
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
func (pm *providerMembersRef) take(val gjson.Result, f form, names []string) bool {
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
//
// Members beside the block's own and in its "extra" object (ptr is the
// block's pointer) may not share a name.
func (pm *providerMembersRef) json(ptr string) (json.RawMessage, error) {
	if pm.obj != "" && !pm.beside {
		return cloneBytes(pm.obj), nil
	}
	out := wrapObject(pm.members)
	if pm.obj != "" && !jsonw.ValidBytes(out) {
		return nil, docErr(ptr+"/extra", "a provider member is named both beside the block's own members and in extra")
	}
	return out, nil
}

func clone(s string) string {
	if s == "" {
		return ""
	}
	return string(append([]byte(nil), s...))
}

func cloneBytes(s string) []byte { return append([]byte(nil), s...) }

func appendMember(dst []byte, rawKey, rawVal string) []byte {
	if len(dst) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, rawKey...)
	dst = append(dst, ':')
	return append(dst, rawVal...)
}

func wrapObject(members []byte) json.RawMessage {
	if len(members) == 0 {
		return nil
	}
	return append(append([]byte{'{'}, members...), '}')
}
