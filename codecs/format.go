package codecs

import (
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/traits"
)

// FormatTraits are the replay facts of one format ([replay.Format]), which
// the codec package that mints it declares with [RegisterFormat]. The
// root package reads them when it carries, audits and seals items of the
// format.
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
	// minted it ([replay.Provenance].Account), so another account cannot
	// decrypt it.
	AccountBound bool
	// PairsWithFollower: a reasoning item of this format must be sent with
	// the item that follows it; when the item is not sent, the follower's
	// own item id is not sent either.
	PairsWithFollower bool
	// Refuse returns the error the issuer's API answers an item it refuses
	// with (why; latest: the item is in the history's latest turn), or ""
	// when it is not known. The audit predicts it for a target that
	// accepts this format. Nil predicts nothing.
	Refuse func(why Refusal, it replay.ReasoningItem, latest bool) string
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
	Unread func(p replay.Provenance, t replay.Target) string
}

// Refusal is why a target refuses an item, for [FormatTraits].Refuse.
type Refusal uint8

// The refusals a contract predicts an error for.
const (
	// RefuseForeign: the item's format is not one the target accepts.
	RefuseForeign Refusal = iota + 1
	// RefuseAltered: the item's replay bytes changed since capture.
	RefuseAltered
	// RefuseAccount: the item's ciphertext was minted by another account.
	RefuseAccount
)

// RegisterFormat declares the traits of f. Codec packages call it in their
// init, once per format they mint; a second registration of one format
// panics.
func RegisterFormat(f replay.Format, t FormatTraits) {
	root := traits.Traits[replay.ReasoningItem, replay.Provenance, replay.Target]{
		SignsText:           t.SignsText,
		RejectsUnsignedText: t.RejectsUnsignedText,
		UnsignedTextError:   t.UnsignedTextError,
		Family:              t.Family,
		AccountBound:        t.AccountBound,
		PairsWithFollower:   t.PairsWithFollower,
		Domain:              t.Domain,
		Unread:              t.Unread,
	}
	if refuse := t.Refuse; refuse != nil {
		root.Refuse = func(why uint8, it replay.ReasoningItem, latest bool) string {
			return refuse(Refusal(why), it, latest)
		}
	}
	traits.Register(string(f), traits.Entry{Root: root, Declared: t})
}

// TraitsOf returns the traits registered for f, and whether f is
// registered.
func TraitsOf(f replay.Format) (FormatTraits, bool) {
	e, ok := traits.Lookup(string(f))
	if !ok {
		return FormatTraits{}, false
	}
	t, ok := e.Declared.(FormatTraits)
	return t, ok
}
