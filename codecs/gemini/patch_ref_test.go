package gemini

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The reference: PatchReport and stripParts as they were written on
// gjson and sjson, kept for FuzzPatch and FuzzStrip (and the benchmarks)
// to hold the one-pass versions to the same bytes.

func refPatch(c Codec, msg []byte, t *replay.Turn) ([]byte, []SentinelUse, error) {
	if t == nil {
		return nil, nil, codecs.Malformed(API, -1, "", "no turn to patch from")
	}
	if !jsonw.ValidBytes(msg) {
		return nil, nil, codecs.Malformed(API, -1, "", "expected a model message object")
	}
	parts := gjson.GetBytes(msg, "parts")
	if !parts.IsArray() {
		return nil, nil, codecs.Malformed(API, -1, "/parts", "expected a parts array")
	}
	p := refPatcher{a: refTurnAnchors(t), sentinel: c.Sentinel, out: append([]byte(nil), msg...),
		nameSeen: map[string]int{}, nNative: map[string]int{}, firstCall: true}
	i := 0
	parts.ForEach(func(_, part gjson.Result) bool {
		p.part(i, part)
		i++
		return p.err == nil
	})
	if p.err == nil {
		p.trailing()
	}
	if p.err != nil {
		return nil, nil, codecs.Malformed(API, -1, "/parts", "cannot set a signature: %v", p.err)
	}
	return p.out, p.uses, nil
}

type refSigSlot struct {
	sig  string
	used bool
}

type refAnchors struct {
	callByID   map[string]*refSigSlot
	callByName map[string][]*refSigSlot
	texts      []*refSigSlot
	thoughts   []*refSigSlot
	natives    map[string][]*refSigSlot
	trailing   []string
}

func refTurnAnchors(t *replay.Turn) *refAnchors {
	a := &refAnchors{callByID: map[string]*refSigSlot{}, callByName: map[string][]*refSigSlot{}, natives: map[string][]*refSigSlot{}}
	for i, bl := range t.Blocks {
		s := &refSigSlot{}
		if e, ok := gemsig.Bound(t.Blocks, i); ok && e.Replayable() && !gemsig.EncodedDummy(e.Data) {
			s.sig = e.Data
		}
		switch bl := bl.(type) {
		case *replay.ToolCall:
			if bl.ID != "" {
				a.callByID[bl.ID] = s
			}
			a.callByName[bl.Name] = append(a.callByName[bl.Name], s)
		case *replay.Text:
			a.texts = append(a.texts, s)
			if bl.Text == "" && s.sig != "" {
				a.trailing = append(a.trailing, s.sig)
			}
		case *replay.ReasoningText:
			if bl.Format == formats.GoogleGemini && bl.Replayable() && !gemsig.EncodedDummy(bl.Signature.Value()) {
				s.sig = bl.Signature.Value()
				a.thoughts = append(a.thoughts, s)
			}
		case *replay.Native:
			a.natives[bl.Kind] = append(a.natives[bl.Kind], s)
		}
	}
	return a
}

type refPatcher struct {
	a         *refAnchors
	sentinel  bool
	out       []byte
	uses      []SentinelUse
	nameSeen  map[string]int
	nNative   map[string]int
	nText     int
	nThought  int
	firstCall bool
	err       error
}

func (p *refPatcher) set(i int, sig string) {
	if p.err == nil {
		p.out, p.err = sjson.SetBytes(p.out, "parts."+strconv.Itoa(i)+".thoughtSignature", sig)
	}
}

func (p *refPatcher) fill(i int, slot *refSigSlot) bool {
	if slot == nil || slot.sig == "" || slot.used {
		return false
	}
	slot.used = true
	p.set(i, slot.sig)
	return true
}

func (p *refPatcher) part(i int, part gjson.Result) {
	switch fc := part.Get("functionCall"); {
	case fc.IsObject():
		p.call(i, part, fc)
	case part.Get("text").Exists() && part.Get("thought").Bool():
		p.fill(i, refNth(p.a.thoughts, &p.nThought))
	case part.Get("text").Exists():
		p.fill(i, refNth(p.a.texts, &p.nText))
	default:
		kind := refPartKind(part)
		k := p.nNative[kind]
		p.nNative[kind]++
		p.fill(i, refNth(p.a.natives[kind], &k))
	}
}

func (p *refPatcher) call(i int, part, fc gjson.Result) {
	name := fc.Get("name").String()
	k := p.nameSeen[name]
	p.nameSeen[name]++
	var slot *refSigSlot
	if id := fc.Get("id").String(); id != "" && p.a.callByID[id] != nil {
		slot = p.a.callByID[id]
	} else if l := p.a.callByName[name]; k < len(l) {
		slot = l[k]
	}
	if !p.fill(i, slot) && p.firstCall && p.sentinel && part.Get("thoughtSignature").Str == "" {
		p.set(i, Sentinel)
		p.uses = append(p.uses, SentinelUse{Part: i, Name: name, ID: fc.Get("id").String()})
	}
	p.firstCall = false
}

func (p *refPatcher) trailing() {
	for _, s := range p.a.texts {
		if s.sig == "" || s.used {
			continue
		}
		for _, tr := range p.a.trailing {
			if tr == s.sig {
				s.used = true
				part := jsonw.String([]byte(`{"text":"","thoughtSignature":`), s.sig)
				part = append(part, '}')
				if p.out, p.err = sjson.SetRawBytes(p.out, "parts.-1", part); p.err != nil {
					return
				}
				break
			}
		}
	}
}

func refNth(l []*refSigSlot, n *int) *refSigSlot {
	k := *n
	*n++
	if k < len(l) {
		return l[k]
	}
	return nil
}

func refPartKind(part gjson.Result) string {
	kind := "part"
	part.ForEach(func(k, _ gjson.Result) bool {
		if k.Str != "thought" && k.Str != "thoughtSignature" {
			kind = k.Str
			return false
		}
		return true
	})
	return kind
}

func refStrip(raw []byte) ([]byte, []codecs.Change) { return refStripParts(raw, false) }

func refStripParts(raw []byte, thoughts bool) ([]byte, []codecs.Change) {
	parts := gjson.GetBytes(raw, "parts")
	if !parts.IsArray() {
		return raw, nil
	}
	var changes []codecs.Change
	out := []byte{'['}
	i := -1
	parts.ForEach(func(_, p gjson.Result) bool {
		i++
		ptr := "/parts/" + strconv.Itoa(i)
		if thoughts && p.Get("thought").Bool() {
			changes = append(changes, codecs.Change{Pointer: ptr, Removed: true, Detail: "thought part removed"})
			return true
		}
		part := []byte(p.Raw)
		if o, sig := kit.DeleteMember(part, "thoughtSignature"); sig.Exists() {
			changes = append(changes, codecs.Change{Pointer: ptr, Removed: true, Detail: "thought signature removed"})
			if _, _, _, more := jsonw.NextMember(string(o), 0); !more { // nothing left
				return true
			}
			part = o
		}
		out = jsonw.Comma(out)
		out = append(out, part...)
		return true
	})
	if len(changes) == 0 {
		return raw, nil
	}
	res := make([]byte, 0, len(raw))
	res = append(res, raw[:parts.Index]...)
	res = append(res, out...)
	res = append(res, ']')
	return append(res, raw[parts.Index+len(parts.Raw):]...), changes
}
