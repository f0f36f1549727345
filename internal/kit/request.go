package kit

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// CheckBody refuses data (a body of api) unless it is JSON that
// [jsonw.Valid] accepts, with an error that says what was expected (what)
// and why the bytes are not it: empty, invalid UTF-8, nested too deep, a
// repeated member name, not JSON.
func CheckBody(api string, data []byte, what string) error {
	if jsonw.ValidBytes(data) {
		return nil
	}
	return replay.Malformed(api, -1, "", "expected %s: %s", what, jsonw.Explain(string(data)))
}

// NoTurn is the error of an Encode or Patch of api given a nil turn (verb
// is "encode" or "patch").
func NoTurn(api, verb string) error {
	if verb == "patch" {
		return replay.Malformed(api, -1, "", "no turn to patch from")
	}
	return replay.Malformed(api, -1, "", "no turn to %s", verb)
}

// RequestRoot checks a request body of api (what names it, "a Converse
// request body") and returns its root object and the conversation array
// named member ("messages", "contents"), each refusal a malformed-input
// error that says why.
func RequestRoot(api string, body []byte, what, member string) (root, conv gjson.Result, err error) {
	if err := CheckBody(api, body, what); err != nil {
		return root, conv, err
	}
	root = gjson.ParseBytes(body)
	if !root.IsObject() {
		return root, conv, replay.Malformed(api, -1, "", "expected %s: a JSON object", what)
	}
	conv = root.Get(member)
	if !conv.IsArray() {
		return root, conv, replay.Malformed(api, -1, "/"+member, "expected a %s array", member)
	}
	return root, conv, nil
}
