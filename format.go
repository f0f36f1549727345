package replay

import (
	"github.com/reasonreplay/replay/internal/traits"
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
// with codecs.RegisterFormat; the constants live in package formats.
type Format string

// FormatUnknown is the explicit "unknown" format: reasoning whose issuer is
// not known. It belongs to the API and platform it came from.
const FormatUnknown Format = "unknown"

// formatTraits are a format's replay facts as the root reads them; package
// codecs documents them (codecs.FormatTraits) and registers them.
type formatTraits = traits.Traits[ReasoningItem, Provenance, Target]

// The reasons a target refuses an item, for formatTraits.Refuse; package
// codecs names them (codecs.Refusal).
const (
	refuseForeign uint8 = iota + 1 // the format is not one the target accepts
	refuseAltered                  // the replay bytes changed since capture
	refuseAccount                  // the ciphertext was minted by another account
)

// traits returns f's replay facts (the zero value when f is not
// registered).
func (f Format) traits() formatTraits {
	t, _ := f.lookup()
	return t
}

func (f Format) lookup() (formatTraits, bool) {
	e, ok := traits.Lookup(string(f))
	if !ok {
		return formatTraits{}, false
	}
	t, ok := e.Root.(formatTraits)
	return t, ok
}

// Known reports whether f is registered (see codecs.RegisterFormat), or is
// [FormatUnknown].
func (f Format) Known() bool {
	_, ok := f.lookup()
	return ok || f == FormatUnknown
}

// Family returns the format's family: formats of one family accept each
// other's items. A format with no declared family is its own.
func (f Format) Family() string {
	if t := f.traits(); t.Family != "" {
		return t.Family
	}
	return string(f)
}

// domain returns the key domain that validates f's signatures for a
// provider name, or "" when f has one domain everywhere or the name does
// not say.
func (f Format) domain(provider string) string {
	if t := f.traits(); t.Domain != nil {
		return t.Domain(provider)
	}
	return ""
}
