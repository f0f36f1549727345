package replay

import (
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/reqtape"
)

// AuditRequest audits a native request body directly: it reads the
// assistant turns the body carries with the API's codec
// ([ReasoningCodec].DecodeRequest)
// and audits them for the target the body describes, so that a request
// builder that broke what the codec encoded is caught before sending.
// Violations carry a JSON Pointer to the turn's element in the body.
// Provenance (issuer, prefix hash, platform) is not in a request body, so
// the rules that need it do not fire; audit stored turns with
// [AuditReplay] and History.Request for those.
func AuditRequest(api string, body []byte) (Report, error) { return Default().AuditRequest(api, body) }

// AuditRequest is the package-level [AuditRequest] on this registry.
func (r *Registry) AuditRequest(api string, body []byte) (Report, error) {
	// The body is read once: the model, which picks the codec, is taken
	// from the tape of the validating pass, and the codec's reader
	// shares that tape. An invalid body has no model (its error is the
	// one the codec without a model gives).
	tape := new(jsonw.Tape)
	model := ""
	valid := tape.ResetBytes(body)
	if valid {
		if m := tape.Root().Get("model"); m.Exists() {
			model = strings.Clone(m.Result().String())
		}
	}
	c, err := r.Lookup(api, "", model)
	if err != nil {
		return Report{}, err
	}
	h, t, err := decodeLent(c, body, tape, valid)
	if err != nil {
		return Report{}, err
	}
	if t.API == "" {
		t.API = c.API()
	}
	return r.AuditReplay(h, t), nil
}

// decodeLent is c.DecodeRequest(body), its reader lent tape (read from
// body) when body is valid.
func decodeLent(c ReasoningCodec, body []byte, tape *jsonw.Tape, valid bool) (History, Target, error) {
	if valid {
		loan := reqtape.Lend(body, tape)
		defer reqtape.Return(body, loan)
	}
	return c.DecodeRequest(body)
}
