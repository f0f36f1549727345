package gemini

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// DecodeRequest reads the model turns of a generateContent request body
// (`{"contents":[...],"tools":[...],"generationConfig":{...}}`) for
// [replay.AuditRequest]: each `contents[i]` with role "model" is read by
// the part reader [Codec.Decode] uses, so that signatures bind to their
// parts as in a response. History.Pointers are "/contents/i".
//
// A turn is complete unless it is structurally cut: a functionCall part
// without a `name` or without `args` is kept as an unfinished call and
// the turn is not complete, so that the core's replay/incomplete-turn
// rule reports it. (An unsigned first call on Gemini 3 is not a cut: the
// gemini/missing-signature rule judges it.)
//
// The body does not name the model (it is in the URL path); a `model`
// member, when present (Vertex batch lines and SDK logs carry one), gives
// Target.Model and the turns' model, which the Gemini 3 rules need. Tools
// is true when `tools` is not empty or a turn calls a function; Thinking is
// true when `generationConfig.thinkingConfig` is present and does not set
// thinkingBudget to 0.
func (c Codec) DecodeRequest(body []byte) (replay.History, replay.Target, error) {
	h := replay.History{Request: body}
	root, contents, tape, err := kit.ReadRequest(API, body, "a generateContent request body", "contents")
	if tape != nil {
		kit.SetTape(&h, tape)
	}
	if err != nil {
		return h, replay.Target{}, err
	}
	t := requestTarget(c.Provider, root)
	isTurn := func(m jsonw.Val) bool { return m.Get("role").Is("model") }
	// The turns' strings go to the part reader's buffer; al keeps their
	// pointers.
	n := kit.ConvCounts(contents, isTurn)
	text := n.Bytes
	n.Bytes = 0
	al := new(kit.Alloc)
	al.Reserve(n)
	rr := requestReader{c: c, al: al}
	rr.r.b.al = al
	rr.r.b.buf.Grow(text)
	err = kit.ConvTurns(&h, &t, contents, "/contents", al, isTurn, nil, func(m jsonw.Val, ptr string, _ bool) (*replay.Turn, error) {
		// The part reader copies what it keeps: it reads the turn in place.
		return rr.turn(m.Raw(), ptr, t.Model)
	})
	return h, t, err
}

// requestTarget reads what a request body says about its target.
func requestTarget(provider string, root jsonw.Val) replay.Target {
	tc := root.Path("generationConfig.thinkingConfig")
	return replay.Target{API: API, Provider: provider, Model: kit.Clone(root.Get("model").Result().String()),
		Tools:    kit.Items(root.Get("tools")) > 0,
		Thinking: tc.IsObject() && (!tc.Get("thinkingBudget").Exists() || tc.Get("thinkingBudget").Result().Int() != 0)}
}

// requestReader reads the model turns of one request, one after another,
// with one part reader: their strings follow one another in its buffer,
// their turns and blocks come from al.
type requestReader struct {
	c   Codec
	al  *kit.Alloc
	r   responder
	bud kit.Budget
	ch  chunk
	sc  jsonw.Scanner
}

// turn reads one model Content object of a request, the JSON text
// content at pointer ptr.
func (rr *requestReader) turn(content, ptr, model string) (*replay.Turn, error) {
	if !isObject(content) {
		return nil, codecs.Malformed(API, -1, ptr, "expected a content object")
	}
	r := &rr.r
	b := r.b // put back where it was below: its buffer must not move
	*r = responder{provider: rr.c.Provider, model: model}
	r.b = b
	r.b.nextTurn()
	rr.bud = kit.NewBudget(API, rr.c.Limits, -1)
	r.b.bud = &rr.bud
	r.b.content, r.b.request = ptr, true
	ch := &rr.ch
	ch.parts = ch.parts[:0]
	sc := &rr.sc
	sc.Reset(content)
	ok := ch.readContent(sc)
	if !sc.End() {
		return nil, codecs.Malformed(API, -1, ptr, "expected a content object")
	}
	if !ok {
		return nil, codecs.Malformed(API, -1, ptr+"/parts", "expected an array")
	}
	r.b.blocks = rr.al.Blocks(2 * len(ch.parts))
	if err := r.decodeParts(ch.parts); err != nil {
		return nil, err
	}
	if err := r.b.close(); err != nil {
		return nil, fmt.Errorf("%s: %w", ptr, err)
	}
	t := rr.al.Turn()
	*t = replay.Turn{Provenance: replay.Provenance{API: API}}
	r.finishTurn(t)
	if len(t.Blocks) == 0 {
		t.Blocks = nil
	}
	t.Complete = !r.b.cut
	return t, nil
}

// ReadRequest reads a generateContent request body once for the
// middleware: the turns as [Codec.DecodeRequest] reads them, the
// `contents` elements, and the system instruction and tools the turns are
// bound to.
func (c Codec) ReadRequest(body []byte) (*codecs.Request, error) {
	return codecs.ReadWith(body, "contents", []string{"systemInstruction", "system_instruction", "tools"}, nil, nil, c.DecodeRequest)
}

// Strip removes the thought signatures of a model content's parts (a part
// that held nothing else goes with its signature). Thought parts stay:
// [Codec.Patch] puts signatures back on parts by their kind and position.
func (Codec) Strip(raw []byte) ([]byte, []codecs.Change) {
	return stripParts(raw, false)
}

// partPointers are the pointers of the parts of a model content.
var partPointers = kit.NewPointers("/parts/")

// stripParts removes the signatures of a model content's parts, and its
// thought parts when thoughts is set. It returns raw itself when there is
// nothing to remove; else the parts array is written again, its elements
// joined by bare commas. A text that is not valid JSON is returned as it
// is, or stripped as far as it reads.
func stripParts(raw []byte, thoughts bool) ([]byte, []codecs.Change) {
	s := view.String(raw)
	pAt := jsonw.MemberValueAt(s, "parts")
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
				out = jsonw.AppendElems(append(out, s[:pAt+1]...), s, pAt+1, at)
			}
		}
		changes = append(changes, codecs.Change{Pointer: partPointers.At(n), Removed: true, Detail: detail})
		if !drop {
			cutAt, cutEnd := jsonw.CutMember(s, at, end, f.sigName, f.sigEnd)
			out = jsonw.Comma(out)
			out = append(out, s[at:cutAt]...)
			out = append(out, s[cutEnd:end]...)
		}
	}
}

// Fix applies a one-shot fix to the model contents: drop-reasoning
// removes their thought parts and signatures; sentinel, and restore for
// what no capture restored, write [Sentinel] on each model step's first
// function call that has no signature (drop-reasoning too, for a model
// that requires one).
func (c Codec) Fix(fix string, r *codecs.Request, only func(int) bool, _ http.Header) ([]byte, http.Header, []codecs.Change) {
	needs := r.Target.Model == "" || RequiresSignatures(r.Target.Model)
	var body []byte
	var changes []codecs.Change
	switch fix {
	case codecs.FixDropReasoning:
		body, changes = codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, ch := stripParts(raw, true)
			if len(ch) == 0 {
				return nil, nil
			}
			if needs {
				out, ch = sentinel(out, ch)
			}
			return out, ch
		})
	case codecs.FixSentinel, codecs.FixRestore:
		body, changes = codecs.EditTurns(r, only, func(_ int, raw []byte) ([]byte, []codecs.Change) {
			out, ch := sentinel(raw, nil)
			if len(ch) == 0 {
				return nil, nil
			}
			return out, ch
		})
	default:
		return r.Body, nil, nil
	}
	return body, nil, changes
}

// sentinel writes [Sentinel] as the signature of the first function call
// of a model content when it has none.
func sentinel(raw []byte, changes []codecs.Change) ([]byte, []codecs.Change) {
	j := -1
	out := raw
	gjson.GetBytes(raw, "parts").ForEach(func(_, p gjson.Result) bool {
		j++
		if !p.Get("functionCall").Exists() {
			return true
		}
		if !p.Get("thoughtSignature").Exists() {
			if o, ok := kit.SetMember(raw, "parts."+strconv.Itoa(j)+".thoughtSignature", jsonw.String(nil, Sentinel)); ok {
				out = o
				changes = append(changes, codecs.Change{Pointer: "/parts/" + strconv.Itoa(j),
					Detail: "the first function call has no signature: Gemini's documented sentinel written"})
			}
		}
		return false
	})
	return out, changes
}

// RenameResults renames the call ids the tool results of a conversation
// element name (see [codecs.ResultRenamer]).
func (Codec) RenameResults(el []byte, rename func(string) (string, bool)) []byte {
	return kit.RenameIn(el, "parts", func(b gjson.Result) bool { return b.Get("functionResponse").IsObject() }, "functionResponse.id", rename)
}
