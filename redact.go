package replay

import (
	"github.com/reasonreplay/replay/internal/itemdigest"
)

// itemDigest returns "sha256:<hex>" of the item's replay bytes: its wire
// form as [ReasoningItem].AppendWire writes it (text, signature, data, id,
// format, index and unknown members; not this library's own members).
func itemDigest(it ReasoningItem) string { return itemdigest.Of(it) }

// mustKeepBytes reports whether an item's replay bytes may not change: it
// is signed, encrypted or opaque.
func mustKeepBytes(it ReasoningItem) bool {
	switch x := it.(type) {
	case *ReasoningText:
		return x.Signature.IsPresent() || x.Format.traits().SignsText
	case *Summary:
		return x.Format.traits().SignsText
	}
	return true
}

// Seal records the digest (ItemMeta.Digest, "sha256:" and the hex SHA-256
// of the item's wire form, [ReasoningItem].AppendWire) of every signed, encrypted or opaque item
// of t that has none yet, so that the audit can tell when its replay bytes
// were changed after capture (the replay/altered-item rule). Call it right
// after decoding, before the turn is stored or shown.
func (t *Turn) Seal() {
	for _, b := range t.Blocks {
		if it, ok := b.(ReasoningItem); ok && mustKeepBytes(it) && it.Meta().Digest == "" && !it.Meta().Unfinished {
			it.Meta().Digest = itemDigest(it)
		}
	}
}

// Redact masks secrets in the reasoning of t with mask, which returns its
// input with the secrets masked. Unsigned reasoning text and summaries are
// masked in place. Signed text, encrypted and opaque items keep their
// replay bytes untouched (masking them makes the next request fail): the
// turn is sealed first ([Turn.Seal]) and such a text item gets a masked display
// copy in ItemMeta.Display instead, when masking changes it. Visible
// assistant text is masked in place. Redact reports whether it changed anything
// (a second call with the same mask changes nothing).
func (t *Turn) Redact(mask func(string) string) bool {
	t.Seal()
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
