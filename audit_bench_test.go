package replay_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/stretchr/testify/assert"
)

// benchHistory returns n sealed Claude turns of 5 signed thinking blocks,
// a text block and a tool call each; bad of them have an altered item.
func benchHistory(n, bad int) []*replay.Turn {
	out := make([]*replay.Turn, n)
	for i := range out {
		tu := &replay.Turn{Provenance: replay.Provenance{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5"}, Complete: true}
		for k := 0; k < 5; k++ {
			tu.Blocks = append(tu.Blocks, claudeText(fmt.Sprintf("step %d of turn %d: weigh the options and pick one.", k, i),
				"RXFvS0JnZ0wYAiJAsig"+strconv.Itoa(i*5+k)))
		}
		tu.Blocks = append(tu.Blocks, &replay.Text{Text: "Done."}, &replay.ToolCall{ID: "toolu_" + strconv.Itoa(i), Name: "read", Arguments: `{"p":"a"}`})
		tu.Seal()
		if i < bad {
			tu.Blocks[0].(*replay.ReasoningText).Text = "altered"
		}
		out[i] = tu
	}
	return out
}

var benchTarget = replay.Target{API: "anthropic", Provider: "anthropic", Model: "claude-sonnet-4-5", Tools: true}

// BenchmarkAuditReplay audits histories of 20, 200 and 2000 turns (5
// reasoning items each) for Anthropic: core, cross-provider and Anthropic
// contract rules. ns/turn should stay flat across sizes.
func BenchmarkAuditReplay(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		h := replay.History{Turns: benchHistory(n, 0)}
		b.Run(strconv.Itoa(n)+"-turns", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if r := replay.AuditReplay(h, benchTarget); !r.Clean() {
					b.Fatal(r.Err())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/turn")
		})
	}
}

// TestAuditAllocationsFollowViolations checks that the audit's allocations
// do not grow with the history, only with the violations found.
func TestAuditAllocationsFollowViolations(t *testing.T) {
	allocs := func(n, bad int) float64 {
		h := replay.History{Turns: benchHistory(n, bad)}
		return testing.AllocsPerRun(5, func() { replay.AuditReplay(h, benchTarget) })
	}
	small, large := allocs(20, 0), allocs(2000, 0)
	assert.InDelta(t, small, large, 2, "a clean audit allocates the same for 20 and 2000 turns")
	few, many := allocs(2000, 10), allocs(2000, 100)
	assert.Greater(t, many, few, "violations allocate")
	t.Logf("allocs: clean 20 turns %.0f, clean 2000 turns %.0f, 2000 turns with 10 violations %.0f, with 100 %.0f", small, large, few, many)
}
