// Package replayproxy is the server behind the replay-proxy command: a
// reverse proxy that puts the [replayhttp] middleware in front of LLM
// providers for agents written in any language. An agent points its base
// URL at the proxy (`http://127.0.0.1:8080/anthropic`, `.../openai/v1`,
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
//     streaming each read through as it arrives;
//   - optionally ([Config.Retry], a [replayhttp.Retry]) retries once,
//     with the fix [replayhttp.Classify] names, a request the upstream
//     refused with a known replay error.
//
// The proxy knows no provider: the codecs declare what it needs (the
// paths, the credential, the public endpoint, the names of upstreams, the
// error shape; see [codecs.HTTP]).
//
// # Limits
//
// A request body is read once (decoding gzip, deflate, br or zstd) within
// [Config.MaxBodyBytes] of decoded bytes and [Config.ReadTimeout], and
// counted against [Config.MaxInflightBytes], the memory all bodies in
// flight may take (503 with Retry-After beyond); only then does it take
// one of [Config.MaxStreams]. Methods the APIs do not use are refused with
// 405. Each write to the client must finish within [Config.WriteTimeout].
//
// # Operations
//
// The server answers GET /livez, /readyz (the store answers) and /metrics
// (Prometheus: latency, time-to-first-byte and upstream-duration
// histograms by upstream, API and model; counters; Go, process and build
// information) itself. Every request has an id ([HeaderRequestID]),
// returned, sent upstream and in each of its log lines. With
// [Config.TracerProvider] it gets one OpenTelemetry span, named and
// attributed by the GenAI semantic conventions ("chat MODEL",
// gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model), with
// the audit's verdict and rules and the repairs (replay.audit.verdict,
// replay.audit.rules, replay.repairs, replay.repair.actions). Headers and
// query strings, where credentials travel, are never logged.
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
