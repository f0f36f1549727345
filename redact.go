package replay

import (
	"crypto/sha256"
	"encoding/hex"
)

// ItemDigest returns "sha256:<hex>" of the item's replay bytes: its wire
// form as [AppendItemWire] writes it (text, signature, data, id, format,
// index and unknown members; not this library's own members).
func ItemDigest(it ReasoningItem) string {
	sum := sha256.Sum256(AppendItemWire(nil, it))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// mustKeepBytes reports whether an item's replay bytes may not change: it
// is signed, encrypted or opaque.
func mustKeepBytes(it ReasoningItem) bool {
	switch x := it.(type) {
	case *ReasoningText:
		return x.Signature.IsPresent() || x.Format.Traits().SignsText
	case *Summary:
		return x.Format.Traits().SignsText
	}
	return true
}

// Seal records the [ItemDigest] of every signed, encrypted or opaque item
// of t that has none yet, so that the audit can tell when its replay bytes
// were changed after capture (the replay/altered-item rule). Call it right
// after decoding, before the turn is stored or shown.
func Seal(t *Turn) {
	for _, b := range t.Blocks {
		if it, ok := b.(ReasoningItem); ok && mustKeepBytes(it) && it.Meta().Digest == "" && !it.Meta().Unfinished {
			it.Meta().Digest = ItemDigest(it)
		}
	}
}

// Redact masks secrets in the reasoning of t with mask, which returns its
// input with the secrets masked. Unsigned reasoning text and summaries are
// masked in place. Signed text, encrypted and opaque items keep their
// replay bytes untouched (masking them makes the next request fail): the
// turn is sealed first ([Seal]) and such a text item gets a masked display
// copy in ItemMeta.Display instead, when masking changes it. Visible
// assistant text is masked in place. Redact reports whether it changed anything
// (a second call with the same mask changes nothing).
func Redact(t *Turn, mask func(string) string) bool {
	Seal(t)
	changed := false
	for _, b := range t.Blocks {
		switch x := b.(type) {
		case *Text:
			if m := mask(x.Text); m != x.Text {
				x.Text, changed = m, true
			}
		case *Summary:
			m := mask(x.Summary)
			switch {
			case m == x.Summary:
			case !mustKeepBytes(x):
				x.Summary, changed = m, true
			case x.Display != Some(m):
				x.Display, changed = Some(m), true
			}
		case *ReasoningText:
			m := mask(x.Text)
			switch {
			case m == x.Text:
			case !mustKeepBytes(x):
				x.Text, changed = m, true
			case x.Display != Some(m):
				x.Display, changed = Some(m), true
			}
		}
	}
	return changed
}
