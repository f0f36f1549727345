// Package stream decodes a provider's streamed response into provider-agnostic
// events and, at its end, the [replay.Turn] it carried, with the stream decoder
// of the response's codec:
//
//	codec, _ := replay.Resolve("anthropic", "claude-sonnet-4-5")
//	s := stream.New(resp.Body, codec, stream.Options{})
//	for s.Next() {
//		ev := s.Event() // forward it, show it, ...
//	}
//	turn, err := s.Turn()
//
// [Stream] pulls from an io.Reader; [Decoder] is pushed the bytes as they
// arrive (split anywhere), for a tee in a proxy or an HTTP middleware. The
// framing (Server-Sent Events, JSON Lines, the AWS binary event stream) is
// chosen by [Options] or detected. A stream that ends early, or that the
// provider ends with an error, yields the partial turn, marked unfinished,
// with the error: nothing cut short is ever replayable.
package stream
