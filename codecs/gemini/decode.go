package gemini

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Decode reads a whole generateContent response body. An error body
// (`{"error":{...}}`) or a prompt blocked by promptFeedback returns a
// *[replay.ProviderError] with the turn.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	var ch chunk
	var sc jsonw.Scanner
	sc.ResetBytes(body)
	if valid, object := ch.read(&sc); !valid || !object {
		return nil, codecs.Malformed(API, -1, "", "expected a JSON object")
	}
	r := responder{provider: c.Provider, candidate: c.Candidate}
	bud := kit.NewBudget(API, c.Limits, -1)
	r.b.bud = &bud
	t := &replay.Turn{Provenance: replay.Provenance{API: API}}
	pe, err := r.response(&ch)
	if err != nil {
		return nil, err
	}
	if err := r.b.close(); err != nil {
		return nil, err
	}
	r.finishTurn(t)
	if pe != nil {
		t.Complete, t.Error = false, pe
		return t, pe
	}
	if !r.seenCandidate {
		return nil, codecs.Malformed(API, -1, "/candidates", "expected candidates, an error or a blocking promptFeedback")
	}
	t.Complete = true
	return t, nil
}

// responder reads GenerateContentResponse objects (a body, or each stream
// event) into a builder.
type responder struct {
	b             builder
	provider      string
	candidate     int
	vertex        bool
	model         string
	finish        string
	usage         []byte
	seenCandidate bool
}

func (r *responder) finishTurn(t *replay.Turn) {
	// Vertex reports usageMetadata.trafficType in every event.
	if !r.vertex && bytes.Contains(r.usage, []byte(`"trafficType"`)) {
		r.vertex = true
	}
	t.Blocks = r.b.blocks
	t.Provenance.Model = r.model
	t.Provenance.Provider = r.provider
	if r.vertex && (r.provider == "" || r.provider == "google" || r.provider == "gemini") {
		t.Provenance.Provider = "vertex"
	}
	t.FinishReason = r.finish
	if r.usage != nil {
		t.Usage = append([]byte(nil), r.usage...)
	}
}

// response applies one response object, read into ch. It returns a
// provider error for an error object or a blocked prompt.
func (r *responder) response(ch *chunk) (*replay.ProviderError, error) {
	err := r.candidates(ch)
	// A createTime member (Vertex) counts unless the candidates before
	// it failed.
	if ch.createTime && (err == nil || ch.createFirst) {
		r.vertex = true
	}
	if err != nil {
		return nil, err
	}
	if ch.errObj != "" {
		return providerError(gjson.Parse(ch.errObj)), nil
	}
	// The model and usage are replaced by each event: each is bounded by
	// MaxItem (what the turn keeps of them is one copy).
	if model := ch.model; isString(model) {
		if m := model[1 : len(model)-1]; m != r.model {
			if err := r.b.bud.Item(len(r.b.blocks), len(model), 0); err != nil {
				return nil, err
			}
			r.model = strings.Clone(gjson.Parse(model).String()) // model aliases the frame
		}
	}
	if usage := ch.usage; isObject(usage) {
		if err := r.b.bud.Item(len(r.b.blocks), len(usage), 0); err != nil {
			return nil, err
		}
		r.usage = append(r.usage[:0], usage...)
	}
	if feedback := ch.feedback; feedback != "" && !r.seenCandidate {
		if br := gjson.Get(feedback, "blockReason"); br.Exists() {
			pe := &replay.ProviderError{API: API, Type: string([]byte(br.String())), Code: "PROMPT_BLOCKED"}
			pe.Message = "prompt blocked: " + pe.Type
			if m := gjson.Get(feedback, "blockReasonMessage"); m.Type == gjson.String {
				pe.Message = string([]byte(m.Str))
			}
			return pe, nil
		}
	}
	return nil, nil
}

// candidates decodes the candidate asked for (each candidate whose index
// is the one asked for, in order), up to the first error.
func (r *responder) candidates(ch *chunk) error {
	if ch.candsBad {
		return r.b.malformed("/candidates", "expected an array")
	}
	for i := range ch.cands {
		cd := &ch.cands[i]
		if cd.bad {
			return r.b.malformed("/candidates/"+strconv.Itoa(cd.at), "expected a candidate object")
		}
		if cd.idx != r.candidate {
			continue
		}
		r.seenCandidate = true
		r.b.cand = cd.at
		if cd.partsBad {
			return r.b.malformed("/candidates/"+strconv.Itoa(cd.at)+"/content/parts", "expected an array")
		}
		if err := r.decodeParts(ch.parts[cd.p0:cd.p1]); err != nil {
			return err
		}
		if finish := cd.finish; isString(finish) && len(finish) > 2 {
			if f := finish[1 : len(finish)-1]; f != r.finish {
				if err := r.b.bud.Item(len(r.b.blocks), len(finish), 0); err != nil {
					return err
				}
				r.finish = string([]byte(gjson.Parse(finish).String()))
			}
		}
	}
	return nil
}

// decodeParts decodes parts, read by [chunk.readContent].
func (r *responder) decodeParts(parts []partFields) error {
	for i := range parts {
		r.b.pi = i
		if err := r.b.fields(&parts[i]); err != nil {
			return err
		}
	}
	return nil
}

// providerError reads a Google error object
// ({"code":400,"status":"INVALID_ARGUMENT","message":...}).
func providerError(e gjson.Result) *replay.ProviderError {
	pe := &replay.ProviderError{API: API}
	if !e.IsObject() {
		pe.Message = string([]byte(e.String()))
		return pe
	}
	if c := e.Get("code"); c.Type == gjson.Number {
		pe.Status = int(c.Int())
		pe.Code = strconv.Itoa(pe.Status)
	}
	pe.Type = string([]byte(e.Get("status").String()))
	pe.Message = string([]byte(e.Get("message").String()))
	if d := e.Get("details"); d.Exists() {
		pe.Raw = string([]byte(e.Raw))
	}
	return pe
}
