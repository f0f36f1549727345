// Package reqtape carries, beside a replay.History, the tape of its
// request body (History.Request read once by a codec's request reader, see
// jsonw.Tape), so that the audit's rules, the conversation's digests and
// repair walk what that one validating pass found instead of reading the
// body again. The tape is no part of the public API: a History embeds a
// [Holder] under an unexported name, and the packages below the root call
// its methods, promoted to the History.
//
// A caller that has read a body before handing it to a codec's request
// reader (replay.AuditRequest reads the model, which picks the codec,
// from its tape) lends the reader that tape ([Lend]): the readers take
// their tape with [Read], which shares a lent one instead of reading the
// body again.
package reqtape

import (
	"sync"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Holder holds the tape of a request body.
type Holder struct{ tape *jsonw.Tape }

// RequestTape returns the tape held when it was read from body's very
// bytes (the History's Request, as it is now), else nil.
func (h *Holder) RequestTape(body []byte) *jsonw.Tape {
	t := h.tape
	if t == nil || len(body) == 0 {
		return nil
	}
	s := t.Text()
	if off, ok := view.Offset(view.String(body), s); len(s) != len(body) || !ok || off != 0 {
		return nil
	}
	return t
}

// SetRequestTape holds t, a tape reset with the request body's bytes.
func (h *Holder) SetRequestTape(t *jsonw.Tape) { h.tape = t }

// bytesKey names a body by where its bytes lie: the same key, the same
// bytes, for as long as its holder does not change them.
type bytesKey struct {
	p *byte
	n int
}

func keyOf(body []byte) bytesKey { return bytesKey{&body[0], len(body)} }

// lent holds the tapes lent, by the bytes they were read from.
var lent sync.Map

// Lend makes t, a tape reset with body's very bytes (jsonw.Tape.ResetBytes
// returned true), the one [Read] shares for body until the loan it
// returns is given back ([Return]): the caller must not change body in
// between. What is lent is a snapshot of t (jsonw.Tape.Snapshot), which
// readers on several goroutines may share; bodies lent at once by
// several callers each keep a tape of the same bytes.
func Lend(body []byte, t *jsonw.Tape) (loan *jsonw.Tape) {
	if len(body) == 0 || t == nil {
		return nil
	}
	if loan = t.Snapshot(t.Text()); loan != nil {
		lent.Store(keyOf(body), loan)
	}
	return loan
}

// LendAfter makes prev, a tape of an earlier text that is never changed
// (a snapshot), the one [Read] reads body after (jsonw.Tape.ResetAfter)
// until the loan is given back ([Return]): a reader then validates only
// what body does not share with prev's text, and records the same tape.
// The caller must not change body in between. It returns the loan (prev;
// nil when nothing is lent).
func LendAfter(body []byte, prev *jsonw.Tape) (loan *jsonw.Tape) {
	if len(body) == 0 || prev == nil {
		return nil
	}
	lent.Store(keyOf(body), prev)
	return prev
}

// Return ends the loan Lend or LendAfter made for body.
func Return(body []byte, loan *jsonw.Tape) {
	if len(body) > 0 && loan != nil {
		lent.CompareAndDelete(keyOf(body), loan)
	}
}

// Lent returns the tape lent for body's very bytes, nil when none is.
func Lent(body []byte) *jsonw.Tape {
	if len(body) == 0 {
		return nil
	}
	if t, ok := lent.Load(keyOf(body)); ok {
		return t.(*jsonw.Tape)
	}
	return nil
}

// Read returns a new tape of body and whether body is valid JSON (as
// jsonw.Tape.ResetBytes says): the tape lent for body's bytes, shared
// (see jsonw.Tape.ResetAfter: the same text shares its records), else
// read now.
func Read(body []byte) (*jsonw.Tape, bool) {
	t := new(jsonw.Tape)
	return t, t.ResetBytesAfter(body, Lent(body))
}
