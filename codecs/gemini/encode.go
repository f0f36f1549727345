package gemini

import (
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// SentinelUse records one place where [Sentinel] was written in place of a
// missing signature.
type SentinelUse struct {
	// Part is the index of the part in the written model message.
	Part int
	// Name and ID identify the function call.
	Name, ID string
	// Replaced is the value the call carried instead, when it carried an
	// encoding of the dummy (which Google treats as a corrupt signature,
	// see [gemsig.EncodedDummy]); empty when the call was unsigned.
	Replaced string
}

// Encode writes the turn as the `contents[]` entry of the next request:
//
//	{"role":"model","parts":[...]}
//
// with every part in its original order and each signature on the part it
// came on. Thought text without a signature, items of other issuers,
// unfinished items, calls and native parts are left out, and so is a
// signature whose part is left out. A signature that is an encoding of the
// documented dummy (base64 of [Sentinel]) is corrupt and never written: the
// part goes without it (a thought part is left out), or, on the first call
// when [Codec.Sentinel] allows it, with the plain [Sentinel].
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	out, _, err := c.EncodeReport(t)
	return out, err
}

// EncodeReport is Encode that also reports where [Sentinel] was written
// (only when [Codec.Sentinel] allows it).
func (c Codec) EncodeReport(t *replay.Turn) ([]byte, []SentinelUse, error) {
	if t == nil {
		return nil, nil, codecs.Malformed(API, -1, "", "no turn to encode")
	}
	e := encoder{blocks: t.Blocks, byID: signaturesByID(t), sentinel: c.Sentinel, firstCall: true}
	e.out = append(e.out, `{"role":"model","parts":[`...)
	for i := range t.Blocks {
		start := len(e.out)
		e.out = jsonw.Comma(e.out)
		ok, err := e.block(i)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			e.out = e.out[:start]
			continue
		}
		e.part++
	}
	e.out = append(e.out, "]}"...)
	return e.out, e.uses, nil
}

// signaturesByID returns the signatures that are not attached but name a
// call by id (as OpenRouter relays them): they are bound to that call.
func signaturesByID(t *replay.Turn) map[string]string {
	byID := map[string]string{}
	for _, bl := range t.Blocks {
		e, ok := bl.(*replay.Encrypted)
		if !ok || e.Attached || e.Format != formats.GoogleGemini || !e.Replayable() || gemsig.EncodedDummy(e.Data) {
			continue
		}
		if id := e.ID.Value(); id != "" {
			byID[id] = e.Data
		}
	}
	return byID
}

// encoder writes the parts of one model message.
type encoder struct {
	blocks    []replay.Block
	byID      map[string]string
	sentinel  bool
	out       []byte
	uses      []SentinelUse
	part      int // the index of the next part written
	firstCall bool
}

// block writes the part of blocks[i], with the signature bound to it, and
// reports whether it wrote one.
func (e *encoder) block(i int) (bool, error) {
	sig, hasSig, corrupt := "", false, ""
	if x, ok := gemsig.Bound(e.blocks, i); ok && x.Replayable() {
		if gemsig.EncodedDummy(x.Data) {
			corrupt = x.Data
		} else {
			sig, hasSig = x.Data, true
		}
	}
	switch bl := e.blocks[i].(type) {
	case *replay.Encrypted:
		return e.signaturePart(i, bl), nil
	case *replay.ReasoningText:
		if bl.Format != formats.GoogleGemini || !bl.Replayable() || gemsig.EncodedDummy(bl.Signature.Value()) {
			return false, nil
		}
		e.out = append(e.out, `{"text":`...)
		e.out = jsonw.String(e.out, bl.Text)
		e.out = append(e.out, `,"thought":true`...)
		e.out = jsonw.Members(e.out, bl.Extra)
		s, ok := bl.Signature.Get()
		e.out = append(appendSig(e.out, s, ok), '}')
	case *replay.Text:
		if bl.Text == "" && !hasSig && len(bl.Extra) == 0 {
			return false, nil // an empty unsigned part carries nothing
		}
		e.out = append(e.out, `{"text":`...)
		e.out = jsonw.String(e.out, bl.Text)
		e.out = jsonw.Members(e.out, bl.Extra)
		e.out = append(appendSig(e.out, sig, hasSig), '}')
	case *replay.ToolCall:
		return e.call(i, bl, sig, hasSig, corrupt)
	case *replay.Native:
		return e.native(bl, sig, hasSig), nil
	default:
		return false, nil
	}
	return true, nil
}

// signaturePart writes a signature that has no part of its own as
// Gemini's trailing `{"text":"","thoughtSignature":...}` part. A bound
// signature is written on the next block's part instead.
func (e *encoder) signaturePart(i int, bl *replay.Encrypted) bool {
	if _, bound := gemsig.Is(bl); bound && i+1 < len(e.blocks) {
		if _, next := gemsig.Is(e.blocks[i+1]); !next {
			return false
		}
	}
	if bl.Format != formats.GoogleGemini || !bl.Replayable() || gemsig.EncodedDummy(bl.Data) ||
		(!bl.Attached && e.byID[bl.ID.Value()] != "") {
		return false
	}
	e.out = append(e.out, `{"text":"","thoughtSignature":`...)
	e.out = jsonw.String(e.out, bl.Data)
	e.out = append(e.out, '}')
	return true
}

// call writes a functionCall part: its own signature, else one relayed
// by id, else (first call only, when allowed) the sentinel.
func (e *encoder) call(i int, bl *replay.ToolCall, sig string, hasSig bool, corrupt string) (bool, error) {
	if bl.Unfinished {
		return false, nil
	}
	if !hasSig && bl.ID != "" && e.byID[bl.ID] != "" {
		sig, hasSig = e.byID[bl.ID], true
	}
	if e.firstCall && !hasSig && e.sentinel {
		sig, hasSig = Sentinel, true
		e.uses = append(e.uses, SentinelUse{Part: e.part, Name: bl.Name, ID: bl.ID, Replaced: corrupt})
	}
	e.firstCall = false
	var err error
	e.out, err = appendCall(e.out, i, bl, sig, hasSig)
	return err == nil, err
}

// native writes a part kept verbatim, with its signature put back last.
func (e *encoder) native(bl *replay.Native, sig string, hasSig bool) bool {
	if bl.Unfinished || !jsonw.ValidBytes(bl.Raw) || !gjson.ParseBytes(bl.Raw).IsObject() {
		return false
	}
	e.out = append(e.out, bl.Raw...)
	if hasSig {
		// Reopen the object to add the signature last.
		j := len(e.out) - 1
		for e.out[j] != '}' {
			j--
		}
		e.out = appendSig(e.out[:j], sig, true)
		e.out = append(e.out, '}')
	}
	return true
}

func appendSig(out []byte, sig string, ok bool) []byte {
	if !ok {
		return out
	}
	out = jsonw.Key(out, "thoughtSignature")
	return jsonw.String(out, sig)
}

// appendCall writes a functionCall part: name, args ({} when the call has
// none), id, the call's own
// unknown members, then the signature and the part's unknown members.
func appendCall(out []byte, i int, c *replay.ToolCall, sig string, hasSig bool) ([]byte, error) {
	out = append(out, `{"functionCall":{"name":`...)
	out = jsonw.String(out, c.Name)
	if c.Arguments != "" {
		a := gjson.Parse(c.Arguments)
		if !jsonw.Valid(c.Arguments) || !(a.IsObject() || a.Type == gjson.Null) {
			return nil, codecs.Malformed(API, -1, "/blocks/"+strconv.Itoa(i)+"/arguments", "the arguments of call %q must be a JSON object", c.Name)
		}
		out = append(out, `,"args":`...)
		out = append(out, c.Arguments...)
	} else {
		// A call always goes back with its args (a request's call without
		// them reads as cut short).
		out = append(out, `,"args":{}`...)
	}
	if c.ID != "" {
		out = append(out, `,"id":`...)
		out = jsonw.String(out, c.ID)
	}
	var outer []byte
	if len(c.Extra) > 0 && jsonw.ValidBytes(c.Extra) {
		ex := gjson.ParseBytes(c.Extra)
		if inner := ex.Get("functionCall"); inner.IsObject() {
			out = jsonw.Members(out, []byte(inner.Raw))
			outer, _ = sjson.DeleteBytes(append([]byte(nil), c.Extra...), "functionCall")
		} else {
			outer = c.Extra
		}
	}
	out = append(out, '}')
	out = appendSig(out, sig, hasSig)
	out = jsonw.Members(out, outer)
	return append(out, '}'), nil
}

// Patch puts the turn's signatures onto a model message the caller built,
// `{"role":"model","parts":[...]}`, and changes nothing else in it:
// function calls are matched by id when the message's call has one, else
// by name and ordinal; visible text parts, thought parts and other parts by
// their position among parts of their kind. A bound signature of an empty
// final text part that has no counterpart is appended as
// `{"text":"","thoughtSignature":...}`.
func (c Codec) Patch(msg []byte, t *replay.Turn) ([]byte, error) {
	out, _, err := c.PatchReport(msg, t)
	return out, err
}
