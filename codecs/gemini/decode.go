package gemini

import (
	"strconv"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/tidwall/gjson"
)

// Decode reads a whole generateContent response body. An error body
// (`{"error":{...}}`) or a prompt blocked by promptFeedback returns a
// *[replay.ProviderError] with the turn.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !gjson.ValidBytes(body) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object")
	}
	root := gjson.Parse(view(body))
	if !root.IsObject() {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object")
	}
	r := responder{provider: c.Provider, candidate: c.Candidate}
	r.b.lim = c.Limits.WithDefaults()
	r.b.event = -1
	t := &replay.Turn{Provenance: replay.Provenance{API: API}}
	pe, err := r.response(root, t)
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
		return nil, replay.Malformed(API, -1, "/candidates", "expected candidates, an error or a blocking promptFeedback")
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
	t.Blocks = r.b.blocks
	t.Provenance.Model = r.model
	t.Provenance.Provider = r.provider
	if r.provider == "" && r.vertex {
		t.Provenance.Provider = "vertex"
	}
	t.FinishReason = r.finish
	if r.usage != nil {
		t.Usage = append([]byte(nil), r.usage...)
	}
}

// response reads one response object. It returns a provider error for an
// error object or a blocked prompt.
func (r *responder) response(root gjson.Result, t *replay.Turn) (*replay.ProviderError, error) {
	var cands, usage, model, feedback, errObj gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "candidates":
			cands = v
		case "usageMetadata":
			usage = v
			if v.Get("trafficType").Exists() {
				r.vertex = true
			}
		case "modelVersion":
			model = v
		case "promptFeedback":
			feedback = v
		case "error":
			errObj = v
		case "createTime":
			r.vertex = true
		}
		return true
	})
	if errObj.Exists() {
		return providerError(errObj), nil
	}
	if model.Type == gjson.String && model.Str != r.model {
		r.model = string([]byte(model.Str))
	}
	if usage.IsObject() {
		r.usage = append(r.usage[:0], usage.Raw...)
	}
	if cands.Exists() && !cands.IsArray() {
		return nil, r.b.malformed("/candidates", "expected an array")
	}
	var cand gjson.Result
	pos := 0
	cands.ForEach(func(_, v gjson.Result) bool {
		i := pos
		if x := v.Get("index"); x.Type == gjson.Number {
			i = int(x.Int())
		}
		pos++
		if i == r.candidate {
			cand = v
			return false
		}
		return true
	})
	if cand.Exists() {
		if !cand.IsObject() {
			return nil, r.b.malformed("/candidates", "expected candidate objects")
		}
		r.seenCandidate = true
		parts := cand.Get("content.parts")
		if parts.Exists() && !parts.IsArray() {
			return nil, r.b.malformed("/candidates/"+strconv.Itoa(pos-1)+"/content/parts", "expected an array")
		}
		var err error
		j := 0
		parts.ForEach(func(_, p gjson.Result) bool {
			err = r.b.part(p, func() string {
				return "/candidates/" + strconv.Itoa(pos-1) + "/content/parts/" + strconv.Itoa(j)
			})
			j++
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		if fr := cand.Get("finishReason"); fr.Type == gjson.String && fr.Str != "" {
			if fr.Str != r.finish {
				r.finish = string([]byte(fr.Str))
			}
		}
	}
	if br := feedback.Get("blockReason"); br.Exists() && !r.seenCandidate {
		pe := &replay.ProviderError{API: API, Type: string([]byte(br.Str)), Code: "PROMPT_BLOCKED"}
		pe.Message = "prompt blocked: " + pe.Type
		if m := feedback.Get("blockReasonMessage"); m.Type == gjson.String {
			pe.Message = string([]byte(m.Str))
		}
		return pe, nil
	}
	return nil, nil
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

// view returns b as a string without copying, for transient reads only.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
