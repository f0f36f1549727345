package replay

import (
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
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
func AuditRequest(api string, body []byte) (Report, error) { return Default.AuditRequest(api, body) }

// AuditRequest is the package-level [AuditRequest] on this registry.
func (r *Registry) AuditRequest(api string, body []byte) (Report, error) {
	model := ""
	if jsonw.ValidBytes(body) {
		model = gjson.GetBytes(body, "model").String()
	}
	c, err := r.Lookup(api, "", model)
	if err != nil {
		return Report{}, err
	}
	h, t, err := c.DecodeRequest(body)
	if err != nil {
		return Report{}, err
	}
	if t.API == "" {
		t.API = c.API()
	}
	return r.AuditReplay(h, t), nil
}
