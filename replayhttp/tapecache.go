package replayhttp

import (
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// A conversation comes back one exchange longer with every request, and
// its body is read by one validating pass (jsonw.Tape) before anything
// else. The Transport keeps, per tenant, the tapes of its last few
// request bodies, each over its own copy of the body, and the next
// request of that tenant is read after the one that shares the most
// leading bytes with it (jsonw.Tape.ResetAfter): what the two share is
// taken as recorded, the rest read. The tape, and all that is read from
// it, are exactly what a cold read gives; ResetAfter is tested and fuzzed
// against Reset. One tenant's tapes are never read for another's request.

// tapeCache keeps, per tenant, the tapes of its last tapePerKey request
// bodies, the least recently used tenant first out once the kept bodies
// and records exceed tapeCacheBytes or the tenants tapeCacheKeys. The
// zero value is ready.
type tapeCache struct{ recent[*jsonw.Tape] }

const (
	tapeCacheBytes = 64 << 20
	tapeCacheKeys  = 4096
	tapePerKey     = 4
	// tapeCacheMaxBody is the largest body whose tape is kept.
	tapeCacheMaxBody = 8 << 20
)

// tapeSize counts a tape's text twice: once for the text, once for what
// a reader kept with it (jsonw.Tape.Keep: the turns read from the text,
// whose strings are copies of parts of it).
func tapeSize(t *jsonw.Tape) int { return 2*len(t.Text()) + t.Size() }

var tapeLimits = recentLimits[*jsonw.Tape]{bytes: tapeCacheBytes, keys: tapeCacheKeys, perKey: tapePerKey, size: tapeSize}

// prevShared returns the tape kept for key whose text shares the most
// leading bytes with body (nil when none is kept), and how many it shares.
func (c *tapeCache) prevShared(key string, body []byte) (*jsonw.Tape, int) {
	if len(body) > tapeCacheMaxBody {
		return nil, 0
	}
	tapes := c.get(key)
	s := view.String(body)
	var best *jsonw.Tape
	n := -1
	for _, t := range tapes {
		// A tape shares at most its text's bytes and the body's: one that
		// cannot share more than the best so far is not compared.
		if min(len(s), len(t.Text())) <= n {
			continue
		}
		if k := jsonw.Shared(s, t.Text()); k > n {
			best, n = t, k
		}
	}
	return best, max(n, 0)
}

// keepShared keeps, under key, a snapshot of t (the tape of body, read
// after from, or from nothing; shared is how many leading bytes from's
// text shares with body, as prevShared found): in place of from when body
// continues it, else before the others. A body that is from's text adds
// nothing. owned says that no one writes body's bytes again: they are
// kept as they are, else copied.
func (c *tapeCache) keepShared(key string, body []byte, owned bool, t, from *jsonw.Tape, shared int) {
	if t == nil || len(body) > tapeCacheMaxBody {
		return
	}
	if from != nil && shared == len(body) && shared == len(from.Text()) {
		return
	}
	text := view.String(body)
	if !owned {
		text = string(body)
	}
	snap := t.Snapshot(text)
	if snap == nil {
		return
	}
	if from != nil && len(body) < len(from.Text()) {
		from = nil // another branch of the conversation: both are kept
	}
	c.recent.put(key, snap, from, tapeLimits)
}
