package replayhttp

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/internal/itemdigest"
	"github.com/stretchr/testify/require"
)

// differencesByDigest is differences as it was first written: every item
// of both turns known by its digest. The comparison by wire forms must
// give the same answers.
func differencesByDigest(got, want *replay.Turn) []string {
	type dk struct {
		digest string
		at     place
		what   string
		it     replay.ReasoningItem
	}
	of := func(t *replay.Turn) (ks []dk, followers []string) {
		var at place
		for _, b := range t.Blocks {
			switch b := b.(type) {
			case replay.ReasoningItem:
				ks = append(ks, dk{digest: itemdigest.Of(b), at: at, what: string(b.Kind()), it: b})
			case *replay.ToolCall:
				at.calls++
				followers = append(followers, b.ItemID)
			case *replay.Text:
				at.text += len(b.Text)
				followers = append(followers, b.ID)
			case *replay.Native:
				at.others++
			}
		}
		return ks, followers
	}
	g, gf := of(got)
	w, wf := of(want)
	var out []string
	same := len(g) == len(w)
	for i := 0; same && i < len(g); i++ {
		same = g[i].digest == w[i].digest && g[i].at == w[i].at
	}
	if !same {
		gi := map[string]int{}
		for i, k := range g {
			gi[k.digest] = i
		}
		wi := map[string]bool{}
		for i, k := range w {
			wi[k.digest] = true
			j, ok := gi[k.digest]
			switch {
			case ok && (j != i || g[j].at != k.at):
				out = append(out, fmt.Sprintf("%s %d was out of place", k.what, i))
			case ok:
			case i < len(g) && g[i].what == k.what && !wi[g[i].digest]:
				out = append(out, fmt.Sprintf("%s %d was %s", k.what, i, changed(g[i].it, k.it)))
			default:
				out = append(out, fmt.Sprintf("%s %d was missing", k.what, i))
			}
		}
		for i, k := range g {
			if !wi[k.digest] && (i >= len(w) || w[i].what != k.what) {
				out = append(out, fmt.Sprintf("%s %d of the request is not in the capture", k.what, i))
			}
		}
	}
	for i := 0; i < len(wf) && i < len(gf); i++ {
		if wf[i] != "" && gf[i] != wf[i] {
			if gf[i] == "" {
				out = append(out, "the id "+strconv.Quote(wf[i])+" that pairs an item with its reasoning was missing")
			} else {
				out = append(out, "an item's id was "+strconv.Quote(gf[i])+", captured "+strconv.Quote(wf[i]))
			}
		}
	}
	return out
}

// randomTurn draws a turn of reasoning items, texts and tool calls from
// small sets of values, so that two draws often share items and places.
func randomTurn(rng *rand.Rand) *replay.Turn {
	tu := &replay.Turn{}
	for range rng.IntN(22) { // past the 8 differences keeps on its stack and the 16 wires does
		switch rng.IntN(5) {
		case 0, 1:
			tu.Blocks = append(tu.Blocks, randomItem(rng))
		case 2:
			tu.Blocks = append(tu.Blocks, &replay.Text{Text: []string{"", "a", "ab"}[rng.IntN(3)], ID: []string{"", "msg_1"}[rng.IntN(2)]})
		case 3:
			tu.Blocks = append(tu.Blocks, &replay.ToolCall{ID: "c", Name: "f", ItemID: []string{"", "fc_1", "fc_2"}[rng.IntN(3)]})
		case 4:
			tu.Blocks = append(tu.Blocks, &replay.Native{Kind: "image", Raw: []byte(`{"type":"image"}`)})
		}
	}
	return tu
}

// TestDifferencesByWire holds differences to the digest-based answers on
// random pairs of turns, half of them one turn edited into the other.
func TestDifferencesByWire(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	for i := range 20000 {
		got, want := randomTurn(rng), randomTurn(rng)
		if i%2 == 0 { // want with some of its blocks dropped, moved or redrawn
			got = &replay.Turn{}
			for _, b := range want.Blocks {
				switch rng.IntN(6) {
				case 0:
				case 1:
					got.Blocks = append([]replay.Block{b}, got.Blocks...)
				case 2:
					got.Blocks = append(got.Blocks, randomItem(rng))
				default:
					got.Blocks = append(got.Blocks, b)
				}
			}
		}
		require.Equal(t, strings.Join(differencesByDigest(got, want), "; "), string(appendDifferences(nil, got, want)), "pair %d", i)
		pre := string(appendDifferences([]byte("x: "), got, want))
		require.Equal(t, "x: "+strings.Join(differencesByDigest(got, want), "; "), pre, "pair %d, after a prefix", i)
	}
}
