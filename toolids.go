package replay

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// toolIDAlphabet is the alphabet of minted ids. Nine characters of it fit
// every id pattern of the APIs that require ids: Anthropic and Bedrock
// (`^[a-zA-Z0-9_-]+$`), OpenAI (any string), and Mistral (exactly nine
// letters and digits).
const toolIDAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// toolIDs mints the ids of one [Carry].
type toolIDs struct {
	history []*Turn
	// taken is every id of the history and every id minted, built the
	// first time an id is minted (most carries mint none).
	taken map[string]bool
	// used is the ids already given to an emitted call: in few (a short
	// list searched in turn), or in usedSet once there are more.
	few     [8]string
	nFew    int
	usedSet map[string]bool
}

// isUsed reports whether id was given to an emitted call.
func (ids *toolIDs) isUsed(id string) bool {
	if ids.usedSet != nil {
		return ids.usedSet[id]
	}
	for _, u := range ids.few[:ids.nFew] {
		if u == id {
			return true
		}
	}
	return false
}

// use records that id was given to an emitted call.
func (ids *toolIDs) use(id string) {
	if ids.usedSet == nil && ids.nFew < len(ids.few) {
		ids.few[ids.nFew] = id
		ids.nFew++
		return
	}
	if ids.usedSet == nil {
		ids.usedSet = make(map[string]bool, 2*len(ids.few))
		for _, u := range ids.few[:ids.nFew] {
			ids.usedSet[u] = true
		}
	}
	ids.usedSet[id] = true
}

// assign returns the id call y is sent with: its own when it is non-empty
// and not given to an earlier call, else a minted one (minted true). k is
// the call's position among the calls of its turn.
func (ids *toolIDs) assign(y *ToolCall, k int) (id string, minted bool) {
	if y.ID != "" && !ids.isUsed(y.ID) {
		ids.use(y.ID)
		return y.ID, false
	}
	if ids.taken == nil {
		// Every id of the history: none minted before this one.
		ids.taken = map[string]bool{}
		for _, t := range ids.history {
			for _, b := range t.Blocks {
				if c, ok := b.(*ToolCall); ok && c.ID != "" && !c.Unfinished {
					ids.taken[c.ID] = true
				}
			}
		}
	}
	for attempt := 0; ; attempt++ {
		id := mintToolID(y, k, attempt)
		if !ids.taken[id] {
			ids.taken[id] = true
			ids.use(id)
			return id, true
		}
	}
}

// mintToolID derives a nine-character id from the call's name, arguments,
// old id and position in its turn, and the attempt number.
func mintToolID(y *ToolCall, k, attempt int) string {
	h := sha256.New()
	for _, s := range [...]string{y.Name, y.Arguments, y.ID, strconv.Itoa(k), strconv.Itoa(attempt)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	out := make([]byte, 9)
	for i := range out {
		out[i] = toolIDAlphabet[int(sum[i])%len(toolIDAlphabet)]
	}
	return string(out)
}

// mintNote notes a minted id.
func (c *carrier) mintNote(ti, bi int, x *ToolCall, id string) {
	why := fmt.Sprintf("the function call %q has no id and %s requires one", x.Name, describeTarget(c.target))
	if x.ID != "" {
		why = fmt.Sprintf("the function call %q has the id %q of an earlier call and %s requires unique ids", x.Name, x.ID, describeTarget(c.target))
	}
	c.notices = append(c.notices, Notice{Turn: ti, Block: bi, Case: CaseToolCallID, Action: MintID,
		OldID: x.ID, NewID: id,
		Reason: why + "; it is sent as " + strconvQuote(id) + ": send its result with that id"})
}

// toolIDRule is the cross-provider rule for targets that require tool call
// ids.
func toolIDRule(rc ReplayContract) Rule {
	need := rc.ToolIDs
	return Rule{
		ID:       RuleToolCallID,
		Severity: SeverityReject,
		Doc: "A target whose tool results name their call ([ReplayContract].ToolIDs) gets a non-empty id on every tool call, " +
			"unique in the request (an empty or repeated id in one turn is rejected; repeated across turns, risky: " +
			"some hosts accept it, Anthropic does not).",
		Check: func(h *History, t *Target, report func(Violation)) {
			if !need {
				return
			}
			// One allocation whatever the history's size: the calls with
			// an id, sorted stably by id, so that the first of a run is the
			// original and the rest repeat it.
			n := 0
			for _, tu := range h.Turns {
				for _, b := range tu.Blocks {
					if _, ok := b.(*ToolCall); ok {
						n++
					}
				}
			}
			type ref struct {
				c      *ToolCall
				ti, bi int
			}
			refs := make([]ref, 0, n)
			fix := "carry the history with Carry: it mints a unique id for each such call and says which, so that each tool result names its call"
			for ti, tu := range h.Turns {
				for bi, b := range tu.Blocks {
					c, ok := b.(*ToolCall)
					switch {
					case !ok:
					case c.ID == "":
						report(Violation{Turn: ti, Block: bi,
							Message: fmt.Sprintf("the function call %q has an empty id; %s requires a non-empty id that its tool result echoes", c.Name, describeTarget(*t)),
							Fix:     fix})
					default:
						refs = append(refs, ref{c, ti, bi})
					}
				}
			}
			slices.SortStableFunc(refs, func(a, b ref) int { return strings.Compare(a.c.ID, b.c.ID) })
			start := 0 // the first call of the run of calls with one id
			for i := 1; i < len(refs); i++ {
				if refs[i].c.ID != refs[start].c.ID {
					start = i
					continue
				}
				first, r := refs[start], refs[i]
				v := Violation{Turn: r.ti, Block: r.bi,
					Message: fmt.Sprintf("the function call %q has the id %q of an earlier call in the same turn; its result cannot be told apart", r.c.Name, r.c.ID),
					Fix:     fix}
				if refs[i-1].ti != r.ti {
					v.Severity = SeverityRisk
					v.Message = fmt.Sprintf("the function call %q has the id %q of a call in turn %d; a target that requires unique ids rejects it", r.c.Name, r.c.ID, first.ti)
				}
				report(v)
			}
		},
	}
}
