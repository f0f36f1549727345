// Package reqtape carries, beside a replay.History, the tape of its
// request body (History.Request read once by a codec's request reader, see
// jsonw.Tape), so that the audit's rules, the conversation's digests and
// repair walk what that one validating pass found instead of reading the
// body again. The tape is no part of the public API: package replay keeps
// it in an unexported field of History and installs the two functions
// below when it is loaded.
package reqtape

import "github.com/reasonreplay/replay/internal/jsonw"

var (
	// Get returns the tape of h (a *replay.History) when it has one read
	// from the very bytes h.Request holds, else nil.
	Get func(h any) *jsonw.Tape
	// Set gives h (a *replay.History) the tape of its request: t must
	// have been reset with h.Request's bytes.
	Set func(h any, t *jsonw.Tape)
)
