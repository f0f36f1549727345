package gemini

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/kit"
	"github.com/tidwall/gjson"
)

// Decode reads a whole generateContent response body. An error body
// (`{"error":{...}}`) or a prompt blocked by promptFeedback returns a
// *[replay.ProviderError] with the turn.
func (c Codec) Decode(body []byte) (*replay.Turn, error) {
	if !jsonw.ValidBytes(body) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object")
	}
	root := view(body)
	if !isObject(root[skipSpace(root, 0):]) {
		return nil, replay.Malformed(API, -1, "", "expected a JSON object")
	}
	r := responder{provider: c.Provider, candidate: c.Candidate}
	r.b.bud = kit.NewBudget(API, c.Limits, -1)
	t := &replay.Turn{Provenance: replay.Provenance{API: API}}
	pe, err := r.response(root)
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
	parts         []partFields // the parts of the current event, transient
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

// response reads one response object, the raw JSON text root. It returns
// a provider error for an error object or a blocked prompt.
func (r *responder) response(root string) (*replay.ProviderError, error) {
	var usage, model, feedback, errObj string
	var err error
	pos := 0
	object(root, 0, func(k string, vi int) int {
		if err != nil {
			return len(root)
		}
		switch k {
		case "candidates":
			if root[vi] != '[' {
				err = r.b.malformed("/candidates", "expected an array")
				return len(root)
			}
			return array(root, vi, func(ci int) int {
				if err != nil {
					return len(root)
				}
				at := pos
				pos++
				e, ok := r.decodeCandidate(root, ci, at, &err)
				if ok || err != nil {
					return e
				}
				return -1
			})
		case "usageMetadata", "modelVersion", "promptFeedback", "error":
			e := valueEnd(root, vi)
			v := root[vi:e]
			switch k {
			case "usageMetadata":
				usage = v
			case "modelVersion":
				model = v
			case "promptFeedback":
				feedback = v
			case "error":
				errObj = v
			}
			return e
		case "createTime":
			r.vertex = true
		}
		return -1
	})
	if err != nil {
		return nil, err
	}
	if errObj != "" {
		return providerError(gjson.Parse(errObj)), nil
	}
	// The model and usage are replaced by each event: each is bounded by
	// MaxItem (what the turn keeps of them is one copy).
	if isString(model) {
		if m := model[1 : len(model)-1]; m != r.model {
			if err := r.b.bud.Item(len(r.b.blocks), len(model), 0); err != nil {
				return nil, err
			}
			r.model = strings.Clone(gjson.Parse(model).String()) // model aliases the frame
		}
	}
	if isObject(usage) {
		if err := r.b.bud.Item(len(r.b.blocks), len(usage), 0); err != nil {
			return nil, err
		}
		r.usage = append(r.usage[:0], usage...)
	}
	if feedback != "" && !r.seenCandidate {
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

// decodeCandidate decodes the candidate at root[ci] (position at) when it
// is the one asked for. It returns the candidate's end and whether it was.
// One pass delimits the parts and reads the index (which usually comes
// after the content); the parts are decoded once the index is known.
func (r *responder) decodeCandidate(root string, ci, at int, errp *error) (int, bool) {
	if root[ci] != '{' {
		*errp = r.b.malformed("/candidates/"+strconv.Itoa(at), "expected a candidate object")
		return len(root), false
	}
	idx := at
	var finish string
	r.parts = r.parts[:0]
	partsBad := false
	end := object(root, ci, func(k string, vi int) int {
		switch k {
		case "index":
			e := valueEnd(root, vi)
			if n, err := strconv.Atoi(root[vi:e]); err == nil {
				idx = n
			}
			return e
		case "finishReason":
			e := valueEnd(root, vi)
			finish = root[vi:e]
			return e
		case "content":
			e, ok := r.scanContent(root, vi)
			partsBad = !ok
			return e
		}
		return -1
	})
	if idx != r.candidate {
		return end, false
	}
	r.seenCandidate = true
	r.b.cand = at
	if partsBad {
		*errp = r.b.malformed("/candidates/"+strconv.Itoa(at)+"/content/parts", "expected an array")
		return end, true
	}
	if *errp = r.decodeParts(); *errp != nil {
		return end, true
	}
	if isString(finish) && len(finish) > 2 {
		if f := finish[1 : len(finish)-1]; f != r.finish {
			if *errp = r.b.bud.Item(len(r.b.blocks), len(finish), 0); *errp != nil {
				return end, true
			}
			r.finish = string([]byte(gjson.Parse(finish).String()))
		}
	}
	return end, true
}

// scanContent delimits the parts of the Content object at root[vi] (a
// candidate's content, or a model turn of a request) into r.parts, and
// returns its end. ok is false when `parts` is not an array.
func (r *responder) scanContent(root string, vi int) (end int, ok bool) {
	if root[vi] != '{' {
		return -1, true
	}
	ok = true
	end = object(root, vi, func(k string, pi int) int {
		if k != "parts" {
			return -1
		}
		if root[pi] != '[' {
			ok = false
			return -1
		}
		return array(root, pi, func(vi int) int {
			f, e := scanPart(root, vi)
			r.parts = append(r.parts, f)
			return e
		})
	})
	return end, ok
}

// decodeParts decodes the parts scanned into r.parts.
func (r *responder) decodeParts() error {
	for i := range r.parts {
		r.b.pi = i
		if err := r.b.fields(&r.parts[i]); err != nil {
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

// view returns b as a string without copying, for transient reads only.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
