package replay

import (
	"github.com/reasonreplay/replay/internal/jsonw"
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
	// The model picks the codec: read without a validating pass of its
	// own, since the codec's reader validates the body. An invalid body
	// has no model (its error is the one the codec without a model gives).
	model := jsonw.TopString(body, "model")
	c, err := r.Lookup(api, "", model)
	var h History
	var t Target
	if err == nil {
		h, t, err = c.DecodeRequest(body)
	}
	if err != nil && model != "" && !jsonw.ValidBytes(body) {
		// An invalid body has no model.
		if c, err = r.Lookup(api, "", ""); err == nil {
			_, _, err = c.DecodeRequest(body)
		}
	}
	if err != nil {
		return Report{}, err
	}
	if t.API == "" {
		t.API = c.API()
	}
	return r.AuditReplay(h, t), nil
}
