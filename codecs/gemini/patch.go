package gemini

import (
	"fmt"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/formats"
	"github.com/reasonreplay/replay/internal/gemsig"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

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

type sigSlot struct {
	sig  string
	used bool
}

// PatchReport is Patch that also reports where [Sentinel] was written
// (only when [Codec.Sentinel] allows it, on the message's first function
// call when it is still unsigned).
func (c Codec) PatchReport(msg []byte, t *replay.Turn) ([]byte, []SentinelUse, error) {
	if t == nil {
		return nil, nil, fmt.Errorf("replay: %s: patch: nil turn", API)
	}
	if !gjson.ValidBytes(msg) {
		return nil, nil, replay.Malformed(API, -1, "", "expected a model message object")
	}
	parts := gjson.GetBytes(msg, "parts")
	if !parts.IsArray() {
		return nil, nil, replay.Malformed(API, -1, "/parts", "expected a parts array")
	}
	// The turn's signatures by anchor.
	callByID := map[string]*sigSlot{}
	callByName := map[string][]*sigSlot{}
	var texts, thoughts []*sigSlot
	natives := map[string][]*sigSlot{}
	var trailing []string // signatures of empty text parts
	for i, bl := range t.Blocks {
		s := &sigSlot{}
		if e, ok := gemsig.Bound(t.Blocks, i); ok && replay.Replayable(e) {
			s.sig = e.Data
		}
		switch bl := bl.(type) {
		case *replay.ToolCall:
			if bl.ID != "" {
				callByID[bl.ID] = s
			}
			callByName[bl.Name] = append(callByName[bl.Name], s)
		case *replay.Text:
			texts = append(texts, s)
			if bl.Text == "" && s.sig != "" {
				trailing = append(trailing, s.sig)
			}
		case *replay.ReasoningText:
			if bl.Format == formats.GoogleGemini && replay.Replayable(bl) {
				s.sig = bl.Signature.Value()
				thoughts = append(thoughts, s)
			}
		case *replay.Native:
			natives[bl.Kind] = append(natives[bl.Kind], s)
		}
	}
	out := append([]byte(nil), msg...)
	var uses []SentinelUse
	nameSeen := map[string]int{}
	nText, nThought := 0, 0
	nNative := map[string]int{}
	firstCall := true
	var err error
	pi := 0
	set := func(i int, sig string) {
		if err == nil {
			out, err = sjson.SetBytes(out, "parts."+strconv.Itoa(i)+".thoughtSignature", sig)
		}
	}
	parts.ForEach(func(_, p gjson.Result) bool {
		i := pi
		pi++
		var slot *sigSlot
		fc := p.Get("functionCall")
		switch {
		case fc.IsObject():
			name := fc.Get("name").String()
			k := nameSeen[name]
			nameSeen[name]++
			if id := fc.Get("id").String(); id != "" && callByID[id] != nil {
				slot = callByID[id]
			} else if l := callByName[name]; k < len(l) {
				slot = l[k]
			}
			if slot != nil && slot.sig != "" && !slot.used {
				slot.used = true
				set(i, slot.sig)
			} else if firstCall && c.Sentinel && p.Get("thoughtSignature").Str == "" {
				set(i, Sentinel)
				uses = append(uses, SentinelUse{Part: i, Name: name, ID: fc.Get("id").String()})
			}
			firstCall = false
			return err == nil
		case p.Get("text").Exists() && p.Get("thought").Bool():
			if nThought < len(thoughts) {
				slot = thoughts[nThought]
			}
			nThought++
		case p.Get("text").Exists():
			if nText < len(texts) {
				slot = texts[nText]
			}
			nText++
		default:
			kind := ""
			p.ForEach(func(k, _ gjson.Result) bool {
				if k.Str != "thought" && k.Str != "thoughtSignature" {
					kind = k.Str
					return false
				}
				return true
			})
			if kind == "" {
				kind = "part"
			}
			if l := natives[kind]; nNative[kind] < len(l) {
				slot = l[nNative[kind]]
			}
			nNative[kind]++
		}
		if slot != nil && slot.sig != "" && !slot.used {
			slot.used = true
			set(i, slot.sig)
		}
		return err == nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("replay: %s: patch: %w", API, err)
	}
	// Signed empty text parts the caller did not build.
	for _, s := range texts {
		if s.sig == "" || s.used {
			continue
		}
		for _, tr := range trailing {
			if tr == s.sig {
				s.used = true
				part := jsonw.String([]byte(`{"text":"","thoughtSignature":`), s.sig)
				part = append(part, '}')
				if out, err = sjson.SetRawBytes(out, "parts.-1", part); err != nil {
					return nil, nil, fmt.Errorf("replay: %s: patch: %w", API, err)
				}
				break
			}
		}
	}
	return out, uses, nil
}
