package gemini

import (
	"fmt"

	"github.com/reasonreplay/replay"
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
}

// Encode writes the turn as the `contents[]` entry of the next request:
//
//	{"role":"model","parts":[...]}
//
// with every part in its original order and each signature on the part it
// came on. Thought text without a signature, items of other issuers,
// unfinished items, calls and native parts are left out, and so is a
// signature whose part is left out.
func (c Codec) Encode(t *replay.Turn) ([]byte, error) {
	out, _, err := c.EncodeReport(t)
	return out, err
}

// EncodeReport is Encode that also reports where [Sentinel] was written
// (only when [Codec.Sentinel] allows it).
func (c Codec) EncodeReport(t *replay.Turn) ([]byte, []SentinelUse, error) {
	if t == nil {
		return nil, nil, fmt.Errorf("replay: %s: encode: nil turn", API)
	}
	// Signatures that are not attached but name a call by id (as OpenRouter
	// relays them) are bound to that call.
	byID := map[string]string{}
	for _, bl := range t.Blocks {
		e, ok := bl.(*replay.Encrypted)
		if !ok || e.Attached || e.Format != formats.GoogleGemini || !replay.Replayable(e) {
			continue
		}
		if id := e.ID.Value(); id != "" {
			byID[id] = e.Data
		}
	}
	out := append([]byte(nil), `{"role":"model","parts":[`...)
	var uses []SentinelUse
	part := 0
	firstCall := true
	for i, bl := range t.Blocks {
		sig, hasSig := "", false
		if e, ok := gemsig.Bound(t.Blocks, i); ok && replay.Replayable(e) {
			sig, hasSig = e.Data, true
		}
		start := len(out)
		out = jsonw.Comma(out)
		switch bl := bl.(type) {
		case *replay.Encrypted:
			if _, bound := gemsig.Is(bl); bound && i+1 < len(t.Blocks) {
				if _, next := gemsig.Is(t.Blocks[i+1]); !next {
					out = out[:start]
					continue // written on the next block's part
				}
			}
			if bl.Format != formats.GoogleGemini || !replay.Replayable(bl) || (!bl.Attached && byID[bl.ID.Value()] != "") {
				out = out[:start]
				continue
			}
			// A signature with no part of its own: Gemini's trailing
			// signature part.
			out = append(out, `{"text":"","thoughtSignature":`...)
			out = jsonw.String(out, bl.Data)
			out = append(out, '}')
		case *replay.ReasoningText:
			if bl.Format != formats.GoogleGemini || !replay.Replayable(bl) {
				out = out[:start]
				continue
			}
			out = append(out, `{"text":`...)
			out = jsonw.String(out, bl.Text)
			out = append(out, `,"thought":true`...)
			out = jsonw.Members(out, bl.Extra)
			if s, ok := bl.Signature.Get(); ok {
				out = jsonw.Key(out, "thoughtSignature")
				out = jsonw.String(out, s)
			}
			out = append(out, '}')
		case *replay.Text:
			if bl.Text == "" && !hasSig && len(bl.Extra) == 0 {
				out = out[:start] // an empty unsigned part carries nothing
				continue
			}
			out = append(out, `{"text":`...)
			out = jsonw.String(out, bl.Text)
			out = jsonw.Members(out, bl.Extra)
			out = appendSig(out, sig, hasSig)
			out = append(out, '}')
		case *replay.ToolCall:
			if bl.Unfinished {
				out = out[:start]
				continue
			}
			if !hasSig && bl.ID != "" && byID[bl.ID] != "" {
				sig, hasSig = byID[bl.ID], true
			}
			if firstCall && !hasSig && c.Sentinel {
				sig, hasSig = Sentinel, true
				uses = append(uses, SentinelUse{Part: part, Name: bl.Name, ID: bl.ID})
			}
			firstCall = false
			var err error
			if out, err = appendCall(out, bl, sig, hasSig); err != nil {
				return nil, nil, err
			}
		case *replay.Native:
			if bl.Unfinished || !gjson.Valid(string(bl.Raw)) || !gjson.ParseBytes(bl.Raw).IsObject() {
				out = out[:start]
				continue
			}
			out = append(out, bl.Raw...)
			if hasSig {
				// Reopen the object to add the signature last.
				j := len(out) - 1
				for out[j] != '}' {
					j--
				}
				out = out[:j]
				out = jsonw.Key(out, "thoughtSignature")
				out = jsonw.String(out, sig)
				out = append(out, '}')
			}
		default:
			out = out[:start]
			continue
		}
		part++
	}
	out = append(out, "]}"...)
	return out, uses, nil
}

func appendSig(out []byte, sig string, ok bool) []byte {
	if !ok {
		return out
	}
	out = jsonw.Key(out, "thoughtSignature")
	return jsonw.String(out, sig)
}

// appendCall writes a functionCall part: name, args, id, the call's own
// unknown members, then the signature and the part's unknown members.
func appendCall(out []byte, c *replay.ToolCall, sig string, hasSig bool) ([]byte, error) {
	out = append(out, `{"functionCall":{"name":`...)
	out = jsonw.String(out, c.Name)
	if c.Arguments != "" {
		a := gjson.Parse(c.Arguments)
		if !gjson.Valid(c.Arguments) || !(a.IsObject() || a.Type == gjson.Null) {
			return nil, fmt.Errorf("replay: %s: encode: arguments of call %q are not a JSON object", API, c.Name)
		}
		out = append(out, `,"args":`...)
		out = append(out, c.Arguments...)
	}
	if c.ID != "" {
		out = append(out, `,"id":`...)
		out = jsonw.String(out, c.ID)
	}
	var outer []byte
	if len(c.Extra) > 0 && gjson.ValidBytes(c.Extra) {
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
