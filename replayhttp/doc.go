// Package replayhttp puts replay where the bytes flow: an
// [http.RoundTripper] (and the same logic as an SDK middleware func) that
// captures the reasoning of every LLM call made through it, audits an
// outgoing request before a byte is sent, repairs an assistant message an
// agent rebuilt without its reasoning, and classifies the provider errors
// that come back anyway.
//
//	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Audit: replayhttp.AuditRefuse}
//	client := &http.Client{Transport: tr}
//
//	ctx, call := replayhttp.WithCapture(ctx)
//	// ... make the call with ctx, read the body to its end (or close it) ...
//	turn, err := call.Turn() // this call's turn, whatever else runs at the same time
//
// The API is recognised from the request (method, path and host; the codec
// resolved by provider and the body's model), streaming from the
// response's Content-Type. The response body the caller reads is the
// provider's, byte for byte: the middleware decodes what the caller has
// read, when it has read it, and keeps only the turn being built (and, for a
// JSON body, the body, up to the limits).
//
// Import github.com/reasonreplay/replay/codecs/all (or the codecs you use)
// so that the registry knows the APIs.
package replayhttp
