package gemini

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Patch and Strip read a model message in one walk with jsonw's Step
// functions (each part's members, and a call's, read where they stand)
// and write one output buffer. They read as gjson reads (the first member
// of a name, names compared with their escapes decoded, a call's name and
// id as gjson's String gives them) and write what sjson wrote: a
// signature replaces the value of the part's thoughtSignature or goes last
// in the part, a part that is not an object becomes
// {"thoughtSignature":...}, and a part that is an array cannot take one.

// Names a patch or a strip looks for in a part.
const (
	mFunctionCall     = "functionCall"
	mText             = "text"
	mThought          = "thought"
	mThoughtSignature = "thoughtSignature"
)

// partScan is what one walk over a part object finds, as offsets in the
// message: the first member of each name (at < 0 when absent; for the
// signature, its name too), the name and id of the call when the first
// functionCall member is an object, the name of the first member that is
// not thought nor thoughtSignature (kindAt < 0 when none), the number of
// members, and where the part ends.
type partScan struct {
	callAt                int
	nameAt, nameEnd       int
	idAt, idEnd           int
	textAt                int
	thoughtAt, thoughtEnd int
	sigName, sigAt        int
	sigEnd                int
	kindAt, kindEnd       int
	members               int
	end                   int
}

// scanPart walks the part object that starts at s[at] once; ok is false
// when it is not valid JSON there.
func scanPart(s string, at int) (f partScan, ok bool) {
	f = partScan{callAt: -1, nameAt: -1, idAt: -1, textAt: -1, thoughtAt: -1, sigAt: -1, kindAt: -1}
	pos := at + 1
	for {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			f.end = nameEnd
			return f, nameAt >= 0
		}
		f.members++
		name := s[nameAt:nameEnd]
		end := -2
		aside := false
		switch {
		case jsonw.ASCIINameIs(name, mFunctionCall):
			if f.callAt < 0 {
				f.callAt = vAt
				if s[vAt] == '{' {
					end = f.scanCall(s, vAt)
				}
			}
		case jsonw.ASCIINameIs(name, mText):
			if f.textAt < 0 {
				f.textAt = vAt
			}
		case jsonw.ASCIINameIs(name, mThought):
			aside = true
			if f.thoughtAt < 0 {
				f.thoughtAt = vAt
				end = jsonw.StepValue(s, vAt)
				f.thoughtEnd = end
			}
		case jsonw.ASCIINameIs(name, mThoughtSignature):
			aside = true
			if f.sigAt < 0 {
				f.sigName, f.sigAt = nameAt, vAt
				end = jsonw.StepValue(s, vAt)
				f.sigEnd = end
			}
		}
		if !aside && f.kindAt < 0 {
			f.kindAt, f.kindEnd = nameAt, nameEnd
		}
		if end == -2 {
			end = jsonw.StepValue(s, vAt)
		}
		if end < 0 {
			return f, false
		}
		pos = end
	}
}

// scanCall walks the functionCall object that starts at s[at] for its
// name and id, and returns where it ends (-1 when it is not valid JSON).
func (f *partScan) scanCall(s string, at int) int {
	pos := at + 1
	for {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			if nameAt < 0 {
				return -1
			}
			return nameEnd
		}
		end := jsonw.StepValue(s, vAt)
		if end < 0 {
			return -1
		}
		if name := s[nameAt:nameEnd]; f.nameAt < 0 && jsonw.ASCIINameIs(name, "name") {
			f.nameAt, f.nameEnd = vAt, end
		} else if f.idAt < 0 && jsonw.ASCIINameIs(name, "id") {
			f.idAt, f.idEnd = vAt, end
		}
		pos = end
	}
}

// thought reports whether the part's thought member reads true as
// gjson's Bool reads it.
func (f *partScan) thought(s string) bool {
	return f.thoughtAt >= 0 && truthy(s[f.thoughtAt:f.thoughtEnd])
}

// truthy is gjson's Result.Bool of the raw JSON value v: true; a string
// that strconv.ParseBool reads as true once lower-cased; a number other
// than 0.
func truthy(v string) bool {
	switch v[0] {
	case 't':
		return true
	case '"':
		s := v[1 : len(v)-1]
		if strings.IndexByte(s, '\\') >= 0 {
			s = string(jsonw.AppendStr(nil, v))
		}
		b, _ := strconv.ParseBool(strings.ToLower(s))
		return b
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, _ := strconv.ParseFloat(v, 64)
		return f != 0
	}
	return false
}

// gstring returns what gjson's Result.String gives for the raw JSON value
// v ("" for none): a string's value, "true" or "false", "" for null, an
// integer as written and any other number as strconv formats its value,
// an object or array as written. A value it must decode or format is
// written in scratch: the result is valid until scratch is written again.
func gstring(v string, scratch *[]byte) string {
	if v == "" {
		return ""
	}
	switch c := v[0]; {
	case c == '"':
		if strings.IndexByte(v, '\\') < 0 {
			return v[1 : len(v)-1]
		}
		*scratch = jsonw.AppendStr((*scratch)[:0], v)
		return view.String(*scratch)
	case c == 't':
		return "true"
	case c == 'f':
		return "false"
	case c == 'n':
		return ""
	case c == '{' || c == '[':
		return v
	}
	i := 0
	if v[0] == '-' {
		i++
	}
	for ; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			f, _ := strconv.ParseFloat(v, 64)
			*scratch = strconv.AppendFloat((*scratch)[:0], f, 'f', -1, 64)
			return view.String(*scratch)
		}
	}
	return v
}

// appendSigValue writes sig as sjson writes a string value.
func appendSigValue(dst []byte, sig string) []byte {
	if !jsonw.PlainASCII(sig) {
		b, _ := json.Marshal(sig)
		return append(dst, b...)
	}
	dst = append(dst, '"')
	dst = append(dst, sig...)
	return append(dst, '"')
}

// sigRoom is the room writing sig as a part's signature, or as a trailing
// part of its own, takes when sig needs no escape (a signature is base64:
// one that does needs more, and the buffer grows).
func sigRoom(sig string) int {
	return len(sig) + len(`,{"text":"","thoughtSignature":""}`)
}

// slot kinds: what a signature of the turn is anchored to.
const (
	slotCall = iota + 1
	slotText
	slotThought
	slotNative
)

// slot is one block of the turn that a part of the message can take a
// signature from.
type slot struct {
	kind  uint8
	used  bool
	empty bool // a text block with no text
	seen  int  // on the first slot of a call name or native kind: the parts of it met so far
	sig   string
	name  string // a call's name, a native's kind
	id    string // a call's id
}

// turnSlots lists the turn's blocks that anchor a signature, in order.
func turnSlots(t *replay.Turn, dst []slot) []slot {
	for i, bl := range t.Blocks {
		sig := ""
		if e, ok := gemsig.Bound(t.Blocks, i); ok && e.Replayable() && !gemsig.EncodedDummy(e.Data) {
			sig = e.Data
		}
		switch bl := bl.(type) {
		case *replay.ToolCall:
			dst = append(dst, slot{kind: slotCall, sig: sig, name: bl.Name, id: bl.ID})
		case *replay.Text:
			dst = append(dst, slot{kind: slotText, sig: sig, empty: bl.Text == ""})
		case *replay.ReasoningText:
			if bl.Format == formats.GoogleGemini && bl.Replayable() && !gemsig.EncodedDummy(bl.Signature.Value()) {
				dst = append(dst, slot{kind: slotThought, sig: bl.Signature.Value()})
			}
		case *replay.Native:
			dst = append(dst, slot{kind: slotNative, sig: sig, name: bl.Kind})
		}
	}
	return dst
}

// slots are the turn's blocks that anchor a signature. They stay out of
// the patcher, whose writes would otherwise take them to the heap.
type slots []slot

// patcher writes the patched message: msg up to last is in out.
type patcher struct {
	sentinel  bool
	firstCall bool
	msg       string
	out       []byte
	last      int
	uses      []SentinelUse
	textAt    int // where the search for the next text slot starts
	thoughtAt int // and for the next thought slot
}

// nextOf returns the next slot of kind (nil when none is left), as the
// parts of that kind come one after another.
func (sl slots) nextOf(kind uint8, from *int) *slot {
	for *from < len(sl) {
		s := &sl[*from]
		*from++
		if s.kind == kind {
			return s
		}
	}
	return nil
}

// named returns the slot of the k-th part of kind named name: the first
// slot of that name counts the parts met (nil when the turn has none of
// that name, or fewer).
func (sl slots) named(kind uint8, name string) *slot {
	var head *slot
	k := 0
	for i := range sl {
		s := &sl[i]
		if s.kind != kind || s.name != name {
			continue
		}
		if head == nil {
			head = s
			k = s.seen
			s.seen++
		}
		if k == 0 {
			return s
		}
		k--
	}
	return nil
}

// byID returns the last call slot with the id (nil when none).
func (sl slots) byID(id string) *slot {
	for i := len(sl) - 1; i >= 0; i-- {
		if s := &sl[i]; s.kind == slotCall && s.id == id {
			return s
		}
	}
	return nil
}

// take reports the slot's signature, once.
func take(s *slot) (string, bool) {
	if s == nil || s.sig == "" || s.used {
		return "", false
	}
	s.used = true
	return s.sig, true
}

// set writes sig as the signature of the part msg[at:end] (f is its
// scan when it is an object).
func (p *patcher) set(at, end int, sig string, f *partScan) error {
	switch {
	case p.msg[at] == '[':
		return errArrayPart
	case p.msg[at] != '{':
		p.out = append(p.out, p.msg[p.last:at]...)
		p.out = append(p.out, `{"thoughtSignature":`...)
		p.out = append(appendSigValue(p.out, sig), '}')
		p.last = end
	case f.sigAt >= 0:
		p.out = append(p.out, p.msg[p.last:f.sigAt]...)
		p.out = appendSigValue(p.out, sig)
		p.last = f.sigEnd
	default:
		p.out = append(p.out, p.msg[p.last:end-1]...)
		if f.members > 0 {
			p.out = append(p.out, ',')
		}
		p.out = append(p.out, `"thoughtSignature":`...)
		p.out = appendSigValue(p.out, sig)
		p.last = end - 1
	}
	return nil
}

// errArrayPart is sjson's refusal to set a member of an array.
var errArrayPart = errString("cannot set array element for non-numeric key 'thoughtSignature'")

type errString string

func (e errString) Error() string { return string(e) }

// part patches part i, msg[at:end] (f is its scan when it is an object).
func (p *patcher) part(sl slots, i, at, end int, f *partScan, scratch *[3][]byte) error {
	s := p.msg
	kind := ""
	switch s[at] {
	case '{':
		switch {
		case f.callAt >= 0 && s[f.callAt] == '{':
			return p.call(sl, i, at, end, f, scratch)
		case f.textAt >= 0 && f.thought(s):
			if sig, ok := take(sl.nextOf(slotThought, &p.thoughtAt)); ok {
				return p.set(at, end, sig, f)
			}
			return nil
		case f.textAt >= 0:
			if sig, ok := take(sl.nextOf(slotText, &p.textAt)); ok {
				return p.set(at, end, sig, f)
			}
			return nil
		}
		kind = "part"
		if f.kindAt >= 0 {
			kind = gstring(s[f.kindAt:f.kindEnd], &scratch[2])
		}
	case '[':
		if e, _ := jsonw.StepElem(s, at+1); e < 0 {
			kind = "part" // an empty array
		}
	}
	if sig, ok := take(sl.named(slotNative, kind)); ok {
		return p.set(at, end, sig, f)
	}
	return nil
}

// call patches the functionCall part i: its signature by id, else by name
// and ordinal, else (first call only, when allowed) the sentinel.
func (p *patcher) call(sl slots, i, at, end int, f *partScan, scratch *[3][]byte) error {
	s := p.msg
	name, id := "", ""
	if f.nameAt >= 0 {
		name = gstring(s[f.nameAt:f.nameEnd], &scratch[0])
	}
	if f.idAt >= 0 {
		id = gstring(s[f.idAt:f.idEnd], &scratch[1])
	}
	byName := sl.named(slotCall, name)
	var sp *slot
	if id != "" {
		sp = sl.byID(id)
	}
	if sp == nil {
		sp = byName
	}
	first := p.firstCall
	p.firstCall = false
	if sig, ok := take(sp); ok {
		return p.set(at, end, sig, f)
	}
	if first && p.sentinel && (f.sigAt < 0 || s[f.sigAt] != '"' || f.sigEnd-f.sigAt == 2) {
		p.uses = append(p.uses, SentinelUse{Part: i, Name: strings.Clone(name), ID: strings.Clone(id)})
		return p.set(at, end, Sentinel, f)
	}
	return nil
}

// PatchReport is Patch that also reports where [Sentinel] was written
// (only when [Codec.Sentinel] allows it, on the message's first function
// call when it is still unsigned).
func (c Codec) PatchReport(msg []byte, t *replay.Turn) ([]byte, []SentinelUse, error) {
	if t == nil {
		return nil, nil, codecs.Malformed(API, -1, "", "no turn to patch from")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, nil, codecs.Malformed(API, -1, "", "expected a model message object")
	}
	s := view.String(msg)
	pAt := topMember(s, "parts")
	if pAt < 0 || s[pAt] != '[' {
		return nil, nil, codecs.Malformed(API, -1, "/parts", "expected a parts array")
	}
	var buf [16]slot
	sl := slots(turnSlots(t, buf[:0]))
	p := patcher{sentinel: c.Sentinel, firstCall: true, msg: s}
	room := len(msg)
	if c.Sentinel {
		room += sigRoom(Sentinel)
	}
	for i := range sl {
		if sl[i].sig != "" {
			room += sigRoom(sl[i].sig)
		}
	}
	p.out = make([]byte, 0, room)
	var scratch [3][]byte
	n := 0
	for pos := pAt + 1; ; n++ {
		at, close := jsonw.StepElem(s, pos)
		if at < 0 && close >= 0 {
			p.trailing(sl, close, n > 0)
			break
		}
		var f partScan
		end, ok := -1, at >= 0
		if ok && s[at] == '{' {
			f, ok = scanPart(s, at)
			end = f.end
		} else if ok {
			end = jsonw.StepValue(s, at)
		}
		if !ok || end < 0 { // not after jsonw.Valid
			return nil, nil, codecs.Malformed(API, -1, "/parts", "expected a parts array")
		}
		if err := p.part(sl, n, at, end, &f, &scratch); err != nil {
			return nil, nil, codecs.Malformed(API, -1, "/parts", "cannot set a signature: %v", err)
		}
		pos = end
	}
	p.out = append(p.out, s[p.last:]...)
	return p.out, p.uses, nil
}

// trailing appends, before the parts array's closing bracket at close,
// the signed empty text parts the caller did not build.
func (p *patcher) trailing(sl slots, close int, comma bool) {
	for i := range sl {
		s := &sl[i]
		if s.kind != slotText || s.sig == "" || s.used || !sl.emptyTextSigned(s.sig) {
			continue
		}
		s.used = true
		p.out = append(p.out, p.msg[p.last:close]...)
		p.last = close
		if comma {
			p.out = append(p.out, ',')
		}
		comma = true
		p.out = append(p.out, `{"text":"","thoughtSignature":`...)
		p.out = append(jsonw.String(p.out, s.sig), '}')
	}
}

// emptyTextSigned reports whether an empty text block of the turn carries
// sig.
func (sl slots) emptyTextSigned(sig string) bool {
	for i := range sl {
		if s := &sl[i]; s.kind == slotText && s.empty && s.sig == sig {
			return true
		}
	}
	return false
}

// topMember returns the offset of the value of the first member of the
// object s named name, -1 when s is not an object or has none. It steps
// over the values before it only.
func topMember(s, name string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	if i >= len(s) || s[i] != '{' {
		return -1
	}
	for pos := i + 1; ; {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			return -1
		}
		if jsonw.ASCIINameIs(s[nameAt:nameEnd], name) {
			return vAt
		}
		if pos = jsonw.StepValue(s, vAt); pos < 0 {
			return -1
		}
	}
}

// partPointers are the pointers of the first parts, made once.
var partPointers = func() (p [64]string) {
	for i := range p {
		p[i] = "/parts/" + strconv.Itoa(i)
	}
	return p
}()

// partPointer returns "/parts/i".
func partPointer(i int) string {
	if i < len(partPointers) {
		return partPointers[i]
	}
	return "/parts/" + strconv.Itoa(i)
}

// stripParts removes the signatures of a model content's parts, and its
// thought parts when thoughts is set. It returns raw itself when there is
// nothing to remove; else the parts array is written again, its elements
// joined by bare commas. A text that is not valid JSON is returned as it
// is, or stripped as far as it reads.
func stripParts(raw []byte, thoughts bool) ([]byte, []codecs.Change) {
	s := view.String(raw)
	pAt := topMember(s, "parts")
	if pAt < 0 || s[pAt] != '[' {
		return raw, nil
	}
	var out []byte
	var buf [8]codecs.Change
	changes := buf[:0]
	bare := true      // the parts so far are written with no white space
	expect := pAt + 1 // where the next part starts, if so
	n := 0
	for pos := pAt + 1; ; n++ {
		at, close := jsonw.StepElem(s, pos)
		if at < 0 {
			if out == nil || close < 0 {
				return raw, nil
			}
			out = append(out, ']')
			out = append(out, s[close+1:]...)
			return out, append([]codecs.Change(nil), changes...)
		}
		if at != expect {
			bare = false
		}
		var f partScan
		end := -1
		detail := ""
		drop := false
		if s[at] == '{' {
			var ok bool
			if f, ok = scanPart(s, at); ok {
				end = f.end
				switch {
				case thoughts && f.thought(s):
					drop, detail = true, "thought part removed"
				case f.sigAt >= 0:
					drop, detail = f.members == 1, "thought signature removed"
				}
			}
		} else {
			end = jsonw.StepValue(s, at)
		}
		if end < 0 {
			return raw, nil
		}
		pos = end
		expect = -1
		if end < len(s) && s[end] == ',' {
			expect = end + 1
		}
		if detail == "" {
			if out != nil {
				out = jsonw.Comma(out)
				out = append(out, s[at:end]...)
			}
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(raw))
			if bare {
				out = append(out, s[:max(at-1, pAt+1)]...)
			} else {
				out = append(out, s[:pAt+1]...)
				for q := pAt + 1; ; {
					a, _ := jsonw.StepElem(s, q)
					if a < 0 || a >= at {
						break
					}
					q = jsonw.StepValue(s, a)
					out = jsonw.Comma(out)
					out = append(out, s[a:q]...)
				}
			}
		}
		changes = append(changes, codecs.Change{Pointer: partPointer(n), Removed: true, Detail: detail})
		if !drop {
			cutAt, cutEnd := sigCut(s, at, &f)
			out = jsonw.Comma(out)
			out = append(out, s[at:cutAt]...)
			out = append(out, s[cutEnd:end]...)
		}
	}
}

// sigCut returns the span of the part object at s[at] that deleting its
// thoughtSignature member removes, as sjson removes it: a first member
// with what follows its value up to and with a comma; any other with the
// comma before it.
func sigCut(s string, at int, f *partScan) (from, to int) {
	j := f.sigName - 1
	for j > at && s[j] != '{' && s[j] != ',' {
		j--
	}
	if s[j] == ',' {
		return j, f.sigEnd
	}
	k := f.sigEnd
	for k < f.end && s[k] <= ' ' {
		k++
	}
	if s[k] == ',' {
		return j + 1, k + 1
	}
	return j + 1, f.sigEnd
}
