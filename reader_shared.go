package replay

import (
	"github.com/reasonreplay/replay/internal/turnfn"
	iview "github.com/reasonreplay/replay/internal/view"
)

func init() { turnfn.ReadTurnShared = readTurnShared }

// readTurnShared is UnmarshalTurn of doc, a document whose bytes never
// change (a string is never written), for a caller that keeps doc as long
// as the turn: every string of the turn that doc holds as it is (its
// literal has no escape) is a view of doc rather than a copy. Strings
// with escapes are decoded, and raw values (Usage, Extra, an Opaque's or
// a Native's Raw) copied, as UnmarshalTurn does: a []byte never views
// doc. What it returns or refuses, and why, is UnmarshalTurn's.
func readTurnShared(doc string) (*Turn, error) {
	if err := checkJSON(iview.Bytes(doc), "a turn document"); err != nil {
		return nil, err
	}
	return readTurn(&reader{size: len(doc), doc: doc, in: blockRoom{turn: true}}, doc)
}
