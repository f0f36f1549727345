// Package readafter lets a codec's request reader read a body with the
// help of the tape of an earlier body (see jsonw.Tape.ResetAfter): a
// proxy sees each conversation again, one exchange longer, and the
// validating pass then reads only what is new. What the reader returns is
// what its ReadRequest returns for the same body: the earlier tape changes
// the cost only. Every codec's request reader takes its tape with
// reqtape.Read, which reads after the tape lent for the body.
package readafter

import (
	"sync"

	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/reqtape"
)

var mu sync.RWMutex

// Read reads body for c as c.ReadRequest does, after prev (a tape of an
// earlier text, never changed; nil: none).
func Read(c codecs.HTTPCodec, body []byte, prev *jsonw.Tape) (*codecs.Request, error) {
	if loan := reqtape.LendAfter(body, prev); loan != nil {
		defer reqtape.Return(body, loan)
	}
	return c.ReadRequest(body)
}

// OwnBytes says of a codec whose request reader reads each model turn
// from the turn's own bytes alone: the turn it makes of a conversation
// element (one element a turn, never a run of several) is a function of
// that element's bytes and of whether it is the request's last turn, for
// a given key (the codec's configuration, a comparable value); nothing
// else of the body (other messages, the system prompt, the tools, the
// model) changes it. A turn's visible digest may then be taken from an
// earlier request's element with the same bytes, key and lastness. It
// returns ok false for a codec it does not speak for.
type OwnBytes func(c codecs.HTTPCodec) (key any, ok bool)

var owners []OwnBytes

// RegisterOwnBytes adds a codec's OwnBytes; a codec package calls it from
// init.
func RegisterOwnBytes(f OwnBytes) {
	mu.Lock()
	owners = append(owners, f)
	mu.Unlock()
}

// TurnKey returns the key under which c's request turns are functions of
// their own bytes (see OwnBytes), nil when c makes no such promise.
func TurnKey(c codecs.HTTPCodec) any {
	mu.RLock()
	os := owners
	mu.RUnlock()
	for _, f := range os {
		if k, ok := f(c); ok {
			return k
		}
	}
	return nil
}
