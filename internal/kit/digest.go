package kit

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/reasonreplay/replay"
)

// ItemDigest returns the digest [replay.Turn.Seal] records for it:
// "sha256:" and the hex SHA-256 of its wire form. The root's tests hold the
// two equal.
func ItemDigest(it replay.ReasoningItem) string {
	sum := sha256.Sum256(it.AppendWire(nil))
	return "sha256:" + hex.EncodeToString(sum[:])
}
