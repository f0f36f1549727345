package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	iview "github.com/reasonreplay/replay/internal/view"
)

// This file writes the two JSON forms of a reasoning item: the
// document form (the reasoning_details members plus this library's own
// `unfinished`, `attached`, `display` and `digest`), and the wire form (the
// item's replay bytes: exactly the members its issuer sent, with no library
// member). reader.go reads them.

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
// caller's bytes in place and copy what they keep (see reader), so that
// nothing they return shares data's memory.
func view(data []byte) string { return iview.String(data) }

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

func loneErr(p string) error {
	return docErr(p, "a lone surrogate escape (\\ud800-\\udfff with no partner) would alter these bytes")
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
