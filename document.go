package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// This file writes and reads the turn document. The JSON forms of one
// reasoning item are in item_json.go.

// MarshalJSON returns the turn document.
func (t *Turn) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil), nil }

// AppendJSON appends the turn document to dst. The output is deterministic:
// members in a fixed order, unknown members after known ones in source
// order, strings escaped minimally.
func (t *Turn) AppendJSON(dst []byte) []byte { return t.appendJSON(dst, nil) }

// appendJSON appends the turn document to dst. With flush set, it hands
// flush what it has appended so far, between two blocks, whenever that is
// flushChunk bytes or more, and goes on appending to the slice flush
// returns: the document is then the concatenation of the pieces.
func (t *Turn) appendJSON(dst []byte, flush func([]byte) []byte) []byte {
	dst = append(dst, '{')
	dst = jsonw.Key(dst, "version")
	dst = jsonw.Int(dst, DocumentVersion)
	dst = jsonw.Key(dst, "provenance")
	dst = append(dst, '{')
	p := t.Provenance
	for _, kv := range [...]struct{ k, v string }{
		{"api", p.API}, {"provider", p.Provider}, {"upstream", p.Upstream}, {"model", p.Model},
		{"requested_model", p.RequestedModel}, {"account", p.Account}, {"prefix_hash", p.PrefixHash},
		{"legacy_prefix_hash", p.LegacyPrefixHash}, {"chain_hash", p.ChainHash},
	} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	dst = append(dst, '}')
	dst = jsonw.Key(dst, "complete")
	dst = jsonw.Bool(dst, t.Complete)
	if t.FinishReason != "" {
		dst = jsonw.Key(dst, "finish_reason")
		dst = jsonw.String(dst, t.FinishReason)
	}
	if e := t.Error; e != nil {
		dst = jsonw.Key(dst, "error")
		dst = appendProviderError(dst, e)
	}
	if len(t.Usage) > 0 {
		dst = jsonw.Key(dst, "usage")
		dst = append(dst, t.Usage...)
	}
	if len(t.Transformations) > 0 {
		dst = jsonw.Key(dst, "transformations")
		dst = append(dst, '[')
		for _, x := range t.Transformations {
			dst = jsonw.Comma(dst)
			dst = appendTransformation(dst, x)
		}
		dst = append(dst, ']')
	}
	dst = jsonw.Key(dst, "blocks")
	dst = append(dst, '[')
	for _, b := range t.Blocks {
		dst = jsonw.Comma(dst)
		if flush != nil && len(dst) >= flushChunk {
			dst = flush(dst)
		}
		dst = appendBlock(dst, b)
	}
	dst = append(dst, ']')
	return append(dst, '}')
}

// flushChunk is the size of the pieces appendJSON hands to its flush.
const flushChunk = 32 << 10

// WriteTo writes the turn document to w, the bytes AppendJSON appends, in
// pieces of some tens of kilobytes cut between blocks, so that a turn of
// any size is written without its document ever being held whole. It
// returns the number of bytes written and the first error of w.
func (t *Turn) WriteTo(w io.Writer) (int64, error) {
	var (
		n   int64
		err error
	)
	write := func(b []byte) []byte {
		if err == nil {
			var m int
			m, err = w.Write(b)
			n += int64(m)
		}
		return b[:0]
	}
	last := t.appendJSON(make([]byte, 0, flushChunk+flushChunk/2), write)
	write(last)
	return n, err
}

func appendProviderError(dst []byte, e *ProviderError) []byte {
	dst = append(dst, '{')
	if e.API != "" {
		dst = jsonw.Key(dst, "api")
		dst = jsonw.String(dst, e.API)
	}
	if e.Status != 0 {
		dst = jsonw.Key(dst, "status")
		dst = jsonw.Int(dst, e.Status)
	}
	for _, kv := range [...]struct{ k, v string }{
		{"type", e.Type}, {"code", e.Code}, {"message", e.Message},
		{"provider", e.Provider}, {"raw", e.Raw},
	} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	return append(dst, '}')
}

func appendBlock(dst []byte, b Block) []byte {
	switch b := b.(type) {
	case ReasoningItem:
		return appendItem(dst, b, false)
	case *Text:
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonw.String(dst, b.Text)
		if b.ID != "" {
			dst = jsonw.Key(dst, "id")
			dst = jsonw.String(dst, b.ID)
		}
		dst = appendExtra(dst, b.Extra, textNames)
		return append(dst, '}')
	case *ToolCall:
		dst = append(dst, `{"type":"tool_call","id":`...)
		dst = jsonw.String(dst, b.ID)
		dst = jsonw.Key(dst, "name")
		dst = jsonw.String(dst, b.Name)
		dst = jsonw.Key(dst, "arguments")
		dst = jsonw.String(dst, b.Arguments)
		if b.ItemID != "" {
			dst = jsonw.Key(dst, "item_id")
			dst = jsonw.String(dst, b.ItemID)
		}
		if b.Unfinished {
			dst = append(dst, `,"unfinished":true`...)
		}
		dst = appendExtra(dst, b.Extra, toolCallNames)
		return append(dst, '}')
	case *Compaction:
		return appendCompaction(dst, b)
	case *Native:
		dst = append(dst, `{"type":"native","kind":`...)
		dst = jsonw.String(dst, b.Kind)
		dst = jsonw.Key(dst, "raw")
		if len(b.Raw) == 0 {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, b.Raw...)
		}
		if b.Unfinished {
			dst = append(dst, `,"unfinished":true`...)
		}
		return append(dst, '}')
	}
	panic(fmt.Sprintf("replay: unknown Block type %T", b))
}

// UnmarshalJSON reads a turn document.
func (t *Turn) UnmarshalJSON(data []byte) error {
	nt, err := UnmarshalTurn(data)
	if err != nil {
		return err
	}
	*t = *nt
	return nil
}

// UnmarshalTurn reads a turn document. Errors are *[Error] values whose
// Pointer names the offending member.
func UnmarshalTurn(data []byte) (*Turn, error) {
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
		if err := parseProvenance(p, f, &t.Provenance); err != nil {
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
		t.FinishReason = owned(fr)
	}
	if e := root.Get("error"); e.Exists() {
		pe, err := parseProviderError(e)
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
			x, err = parseTransformation(v, f, "/transformations/"+strconv.Itoa(i))
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
		blk, err = parseBlock(b, f, "/blocks/"+strconv.Itoa(i))
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

// parseProvenance reads the provenance object: its members are all
// strings, and no other member is allowed (the schema says so too).
// "issuer" is the name "account" had before; a document holds one or the
// other. A version-1 document's "prefix_hash" may have
// been made by either definition that version's builds used, so it is
// read as the LegacyPrefixHash.
func parseProvenance(p gjson.Result, f form, dst *Provenance) error {
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
			*f = owned(v)
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

func parseProviderError(e gjson.Result) (*ProviderError, error) {
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
		*f.dst = owned(v)
	}
	return pe, nil
}

func parseBlock(b gjson.Result, f form, ptr string) (Block, error) {
	if !b.IsObject() {
		return nil, docErr(ptr, "a block must be a JSON object")
	}
	typ := b.Get("type")
	if typ.Type != gjson.String {
		return nil, docErr(ptr+"/type", "a block needs a string type")
	}
	switch typ.Str {
	case "text":
		return parseText(b, f, ptr)
	case "tool_call":
		return parseToolCall(b, f, ptr)
	case "native":
		return parseNative(b, ptr)
	case "compaction":
		return parseCompaction(b, f, ptr)
	}
	if len(typ.Str) > len("reasoning.") && typ.Str[:len("reasoning.")] == "reasoning." {
		return parseItem(b, f, ptr)
	}
	return nil, docErr(ptr+"/type", "unknown block type %q", typ.Str)
}

// parseText reads a text block.
func parseText(b gjson.Result, f form, ptr string) (Block, error) {
	x := &Text{}
	var extra providerMembers
	var err error
	b.ForEach(func(key, val gjson.Result) bool {
		switch key.Str {
		case "type":
		case "text":
			if val.Type != gjson.String {
				err = docErr(ptr+"/text", "text must be a string")
				return false
			}
			x.Text = owned(val)
		case "id":
			if val.Type != gjson.String {
				err = docErr(ptr+"/id", "id must be a string")
				return false
			}
			x.ID = owned(val)
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
	x.Extra = extra.json()
	return x, nil
}

// parseToolCall reads a tool_call block.
func parseToolCall(b gjson.Result, f form, ptr string) (Block, error) {
	x := &ToolCall{}
	var extra providerMembers
	var err error
	b.ForEach(func(key, val gjson.Result) bool {
		p := ptr + "/" + escapePointer(key.Str)
		strField := func(dst *string) bool {
			if val.Type != gjson.String {
				err = docErr(p, "%s must be a string", key.Str)
				return false
			}
			*dst = owned(val)
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
	x.Extra = extra.json()
	return x, nil
}

// parseNative reads a native block.
func parseNative(b gjson.Result, ptr string) (Block, error) {
	x := &Native{}
	k := b.Get("kind")
	if k.Type != gjson.String {
		return nil, docErr(ptr+"/kind", "a native block needs a string kind")
	}
	x.Kind = owned(k)
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

func wrapObject(members []byte) json.RawMessage {
	if len(members) == 0 {
		return nil
	}
	return append(append([]byte{'{'}, members...), '}')
}

func appendCompaction(dst []byte, b *Compaction) []byte {
	dst = append(dst, `{"type":"compaction"`...)
	if b.Format != "" {
		dst = jsonw.Key(dst, "format")
		dst = jsonw.String(dst, string(b.Format))
	}
	if b.ID != "" {
		dst = jsonw.Key(dst, "id")
		dst = jsonw.String(dst, b.ID)
	}
	dst = appendOptString(dst, "content", b.Content)
	dst = appendOptString(dst, "signature", b.Signature)
	if b.Data != "" {
		dst = jsonw.Key(dst, "data")
		dst = jsonw.String(dst, b.Data)
	}
	if b.Unfinished {
		dst = append(dst, `,"unfinished":true`...)
	}
	dst = appendExtra(dst, b.Extra, compactionNames)
	return append(dst, '}')
}

// parseCompaction reads a compaction block.
func parseCompaction(b gjson.Result, f form, ptr string) (Block, error) {
	x := &Compaction{}
	var extra providerMembers
	var err error
	b.ForEach(func(key, val gjson.Result) bool {
		p := ptr + "/" + escapePointer(key.Str)
		switch key.Str {
		case "type":
		case "format":
			var f string
			err = readString(&f, val, p, key.Str)
			x.Format = Format(f)
		case "id":
			if err = refuseLone(val, p); err == nil {
				err = readString(&x.ID, val, p, key.Str)
			}
		case "content":
			if err = refuseLone(val, p); err == nil {
				err = readOptString(&x.Content, val, p, key.Str)
			}
		case "signature":
			if err = refuseLone(val, p); err == nil {
				err = readOptString(&x.Signature, val, p, key.Str)
			}
		case "data":
			if err = refuseLone(val, p); err == nil {
				err = readString(&x.Data, val, p, key.Str)
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
	x.Extra = extra.json()
	return x, nil
}

var transformationNames = []string{"type", "reason", "path", "extra"}

func appendTransformation(dst []byte, x Transformation) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonw.String(dst, x.Type)
	for _, kv := range [...]struct{ k, v string }{{"reason", x.Reason}, {"path", x.Path}} {
		if kv.v != "" {
			dst = jsonw.Key(dst, kv.k)
			dst = jsonw.String(dst, kv.v)
		}
	}
	dst = appendExtra(dst, x.Extra, transformationNames)
	return append(dst, '}')
}

// parseTransformation reads one entry of a turn's transformations: a type,
// an optional reason and path (strings), and other members kept in Extra
// (in its "extra" object when one is named like these).
func parseTransformation(v gjson.Result, f form, ptr string) (Transformation, error) {
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
		*fl.dst = owned(m)
	}
	var extra providerMembers
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
	x.Extra = extra.json()
	return x, nil
}
