// Package replayproxy is the server behind `replay proxy`: a reverse proxy
// that puts the [replayhttp] middleware in front of LLM providers for
// agents written in any language. An agent points its base URL at the
// proxy (`http://127.0.0.1:8080/anthropic`, `.../openai/v1`,
// `.../openrouter/v1`, `.../gemini`); the proxy forwards each request to
// the upstream its first path segment names and, on the way,
//
//   - puts back, byte for byte, the reasoning an assistant message lost
//     (from a [replayhttp.Store] of the turns it captured), and removes
//     what must not cross providers;
//   - audits the request ([ModeReport] adds a response header and a log
//     line; [ModeEnforce] answers the provider-shaped 400 the upstream
//     would have sent, with the rule id and the fix, without calling it);
//   - captures the reasoning of every response as the client reads it,
//     streaming each SSE event through as it arrives, with no added
//     buffering;
//   - optionally ([Config.Retry], a [replayhttp.Retry]) retries once,
//     with the fix [replayhttp.Classify] names, a request the upstream
//     refused with a known replay error, and applies the fix that worked
//     up front to the conversation's next requests.
//
// Authentication headers (and the query string, where Gemini may carry a
// key) pass through untouched and are never logged. The server answers
// GET /healthz and GET /metrics (the Prometheus text format) itself.
//
//	srv, err := replayproxy.New(replayproxy.Config{
//		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: "https://api.anthropic.com"}},
//	})
//	// ...
//	http.ListenAndServe("127.0.0.1:8080", srv)
//
// Import github.com/reasonreplay/replay/codecs/all (or the codecs you use)
// so that the registry knows the APIs.
package replayproxy
