package replay

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Format names the issuer of a reasoning item: which provider minted it and
// in which wire dialect ("anthropic-claude-v1", "openai-responses-v1", ...),
// spelled as OpenRouter spells the `format` field of its reasoning_details.
// It is an open set: a string this library does not know is kept as it came
// and written back unchanged, never rewritten.
//
// The empty Format means the source said nothing; it is written back as
// absent. [FormatUnknown] is the explicit "unknown" that a host sends (or a
// codec sets) for reasoning with no known issuer.
//
// What a format requires on replay (a signature on its text, ciphertext
// bound to an account, ...) is declared by the codec package that mints it,
// with [RegisterFormat]; the constants live in package formats.
type Format string

// FormatUnknown is the explicit "unknown" format: reasoning whose issuer is
// not known. It belongs to the API and platform it came from.
const FormatUnknown Format = "unknown"

// FormatTraits are the replay facts of one format.
type FormatTraits struct {
	// SignsText: the issuer signs its reasoning text, so a text item of
	// this format is replayable only with a non-empty signature.
	SignsText bool
	// RejectsUnsignedText: the issuer answers reasoning text sent back
	// without a signature with an error (the replay/empty-signature rule
	// checks it; UnsignedTextError is the error it predicts).
	RejectsUnsignedText bool
	// UnsignedTextError is the provider error predicted for unsigned text.
	UnsignedTextError string
	// Family groups formats whose signatures and ciphertext are accepted by
	// each other's targets. Empty means the format is its own family.
	Family string
	// AccountBound: the issuer binds its ciphertext to the account that
	// minted it ([Provenance].Account), so another account cannot decrypt
	// it.
	AccountBound bool
	// PairsWithFollower: a reasoning item of this format must be sent with
	// the item that follows it; when the item is not sent, the follower's
	// own item id is not sent either.
	PairsWithFollower bool
	// Refuse returns the error the issuer's API answers an item it refuses
	// with (why; latest: the item is in the history's latest turn), or ""
	// when it is not known. The audit predicts it for a target that
	// accepts this format. Nil predicts nothing.
	Refuse func(why Refusal, it ReasoningItem, latest bool) string
	// Domain names the key domain that validates the format's signatures
	// for a provider or gateway upstream name ("" when the name does not
	// say). An item minted in one domain is not accepted in another. Nil
	// means one domain everywhere.
	Domain func(provider string) string
	// Unread returns why the target does not read an item of this format
	// minted as p says (its model or account binds it, and the target's
	// model or account differs), or "" when it does or the facts are not
	// known. The provider drops such an item silently. Nil: every target
	// that accepts the format reads it.
	Unread func(p Provenance, t Target) string
}

var formatTraits atomic.Pointer[map[Format]FormatTraits]
var formatMu sync.Mutex

// RegisterFormat declares the traits of f. Codec packages call it in their
// init functions for the formats they mint. Registering a format twice
// panics.
func RegisterFormat(f Format, t FormatTraits) {
	formatMu.Lock()
	defer formatMu.Unlock()
	old := formatTraits.Load()
	next := map[Format]FormatTraits{}
	if old != nil {
		if _, dup := (*old)[f]; dup {
			panic(fmt.Sprintf("replay: format %q registered twice", f))
		}
		for k, v := range *old {
			next[k] = v
		}
	}
	next[f] = t
	formatTraits.Store(&next)
}

// Traits returns the registered traits of f. An unregistered format has
// none: it signs nothing, binds nothing and is its own family.
func (f Format) Traits() FormatTraits {
	t, _ := f.lookup()
	return t
}

func (f Format) lookup() (FormatTraits, bool) {
	m := formatTraits.Load()
	if m == nil {
		return FormatTraits{}, false
	}
	t, ok := (*m)[f]
	return t, ok
}

// Known reports whether f is registered (see [RegisterFormat]), or is
// [FormatUnknown].
func (f Format) Known() bool {
	_, ok := f.lookup()
	return ok || f == FormatUnknown
}

// Family returns the format's family: formats of one family accept each
// other's items. A format with no declared family is its own.
func (f Format) Family() string {
	if t := f.Traits(); t.Family != "" {
		return t.Family
	}
	return string(f)
}

// domain returns the key domain that validates f's signatures for a
// provider name, or "" when f has one domain everywhere or the name does
// not say.
func (f Format) domain(provider string) string {
	if t := f.Traits(); t.Domain != nil {
		return t.Domain(provider)
	}
	return ""
}
