package replayhttp

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/tidwall/gjson"
)

// Fix names the one-shot repair of a request that a provider rejected.
type Fix string

// The fixes [Classify] proposes. FixRestore is what a [Transport] with a
// [Store] does to the next request by itself; the others are edits of the
// request body for the caller's one retry. The codecs name them in their
// rules' symptoms ([replay.Symptom].Fix) by these strings.
const (
	// FixNone: no mechanical repair is known; the request must be rebuilt.
	FixNone Fix = ""
	// FixRestore: put back the captured reasoning, byte for byte, where the
	// request lost or changed it (repair from the Store).
	FixRestore Fix = codecs.FixRestore
	// FixDropReasoning: remove the reasoning from the assistant messages
	// (Anthropic thinking blocks, OpenAI reasoning items, Gemini thought
	// parts and signatures, reasoning_details), as gateways do when a
	// signature or ciphertext is refused.
	FixDropReasoning Fix = codecs.FixDropReasoning
	// FixDropBlock: ask Anthropic to drop a thinking block bound to another
	// conversation (`thinking.block_binding.prefix_mismatch_behavior:
	// "drop_block"`, with the beta header it requires).
	FixDropBlock Fix = codecs.FixDropBlock
	// FixSentinel: write Gemini's documented skip value as the signature of
	// each model step's first function call that has none.
	FixSentinel Fix = codecs.FixSentinel
	// FixBackfillReasoningContent: send `reasoning_content` ("" where the
	// turn had none) on every assistant message that lacks it.
	FixBackfillReasoningContent Fix = codecs.FixBackfillReasoningContent
	// FixRemoveReasoningContent: remove `reasoning_content` from the
	// assistant messages (DeepSeek R1).
	FixRemoveReasoningContent Fix = codecs.FixRemoveReasoningContent
	// FixDropDuplicates: send each reasoning_details item once.
	FixDropDuplicates Fix = codecs.FixDropDuplicates
	// FixReencode writes the offending item as its codec encodes it,
	// leaving out the members the API refuses on input (an OpenAI reasoning
	// item's content or status) and adding the ones it requires (summary).
	FixReencode Fix = codecs.FixReencode
	// FixConfigure changes the request's settings rather than its
	// history: a beta header the feature needs, a compaction strategy, the
	// order of context-management strategies.
	FixConfigure Fix = codecs.FixConfigure
)

// Classification is what [Classify] makes of a provider's error response.
type Classification struct {
	// Rule is the audit rule id the error is the symptom of ("" when the
	// error is not one the audit predicts).
	Rule string
	// Rules are every rule id whose predicted error reads like this one,
	// Rule first: some providers answer several mistakes with one text.
	Rules []string
	// Pointer is a JSON Pointer into the request, when the error names a
	// place ("/messages/1/content/0", "/contents/2/parts/0").
	Pointer string
	// Item is the item id the error names (an OpenAI `rs_...`), if any.
	Item string
	// Fix is the one-shot repair.
	Fix Fix
	// Message is the provider's error message that was read.
	Message string
}

// Known reports whether the error was recognised.
func (c Classification) Known() bool { return c.Rule != "" }

// locators are the patterns locate reads an error message's place and
// item with, compiled when the first error is classified (not when the
// program starts).
type locators struct {
	messagesAt, index, contents, input, item *regexp.Regexp
}

var (
	locatorsOnce sync.Once
	locatorsRe   locators
)

func compiledLocators() *locators {
	locatorsOnce.Do(func() {
		locatorsRe = locators{
			messagesAt: regexp.MustCompile(`messages(?:\.(\d+)|\[(\d+)\])(?:\.content\.(\d+))?`),
			index:      regexp.MustCompile(`(?i)(?:message index|message at index|at index) (\d+)`),
			contents:   regexp.MustCompile(`contents\[(\d+)\]\.parts\[(\d+)\]`),
			input:      regexp.MustCompile(`'input\[(\d+)\]`),
			item:       regexp.MustCompile(`(?i)item (?:found )?(?:with id )?'?((?:rs|fc|msg)_[A-Za-z0-9_-]+)`),
		}
	})
	return &locatorsRe
}

// Classify reads a provider's error response (the status and the body,
// of any API a registered codec serves, or of a gateway relaying one) and
// says which audit rule it is the symptom of, where, and the one-shot
// repair that fixes it, so that a caller can retry once and remember the
// decision for the conversation. An error it does not recognise gives a
// Classification with an empty Rule.
//
// The texts are the ones the rules of [replay.Default]'s codecs declare
// ([replay.Rule].Symptoms): a codec whose contract depends on the provider
// or model lists every variant with a method `Contracts()
// []replay.ReplayContract`. A rule whose symptom names no fix is known and
// not repairable by an edit of the reasoning (a client version gate, for
// one).
func Classify(status int, body []byte) Classification {
	return ClassifyWith(nil, "", status, body)
}

// ClassifyWith is [Classify] over the rules of reg ([replay.Default] when
// nil). With api set (the API the request was sent to, when the caller
// knows it), that API's symptoms are preferred to other APIs' among texts
// of equal rank, and the envelope a symptom requires ([replay.Symptom].Within)
// is taken as present.
func ClassifyWith(reg *replay.Registry, api string, status int, body []byte) Classification {
	if status != 0 && status < 400 {
		return Classification{}
	}
	if reg == nil {
		reg = replay.Default()
	}
	tab := symptomsOf(reg)
	texts := errorTexts(body)
	for _, msg := range texts {
		if c, ok := tab.classify(msg, body, api); ok {
			c.Pointer, c.Item = locate(msg)
			return c
		}
	}
	if len(texts) > 0 {
		return Classification{Message: texts[0]}
	}
	return Classification{}
}

// errorTexts returns the messages an error body holds, the most specific
// first: a gateway's relayed upstream error, the error's message, the
// body's message, and the body itself.
func errorTexts(body []byte) []string {
	var out []string
	if !jsonw.ValidBytes(body) {
		return append(out, string(body))
	}
	root := gjson.ParseBytes(body)
	if root.IsArray() { // a stream of errors: the first is read
		root = root.Get("0")
	}
	raw := root.Get("error.metadata.raw")
	if raw.Exists() {
		s := raw.String()
		if jsonw.Valid(s) {
			out = append(out, errorTexts([]byte(s))...)
		} else {
			out = append(out, s)
		}
	}
	for _, p := range []string{"error.message", "message", "Message", "detail", "error"} {
		if v := root.Get(p); v.Type == gjson.String && v.Str != "" {
			out = append(out, v.Str)
		}
	}
	return append(out, string(body))
}

// locate reads the place and the item an error message names.
func locate(msg string) (ptr, item string) {
	re := compiledLocators()
	if m := re.contents.FindStringSubmatch(msg); m != nil {
		ptr = "/contents/" + m[1] + "/parts/" + m[2]
	} else if m := re.messagesAt.FindStringSubmatch(msg); m != nil {
		ptr = "/messages/" + m[1] + m[2]
		if m[3] != "" {
			ptr += "/content/" + m[3]
		}
	} else if m := re.index.FindStringSubmatch(msg); m != nil {
		ptr = "/messages/" + m[1]
	} else if m := re.input.FindStringSubmatch(msg); m != nil {
		ptr = "/input/" + m[1]
	}
	if m := re.item.FindStringSubmatch(msg); m != nil {
		item = m[1]
	}
	return ptr, item
}

// symptom is one compiled [replay.Symptom] of a rule of a registered API.
type symptom struct {
	api        string
	re, within *regexp.Regexp
	rules      []string // the rule and the symptom's Also, in order
	fix        Fix
	rank       int
}

// symptomTable is every symptom of a registry's rules, the highest rank
// first, then in the registry's order (APIs sorted, each contract's rules
// in order).
type symptomTable struct {
	apis string // the registry's APIs when the table was built
	list []symptom
}

var (
	tables   sync.Map // *replay.Registry -> *symptomTable
	compiled sync.Map // pattern -> *regexp.Regexp (nil when it does not compile)
)

// contractLister is implemented by a codec whose contract depends on the
// provider or model: it lists every variant's contract.
type contractLister interface {
	Contracts() []replay.ReplayContract
}

// symptomsOf returns the symptom table of reg, built once per set of
// registered APIs.
func symptomsOf(reg *replay.Registry) *symptomTable {
	apis := reg.APIs()
	key := strings.Join(apis, "\x00")
	if t, ok := tables.Load(reg); ok && t.(*symptomTable).apis == key {
		return t.(*symptomTable)
	}
	t := &symptomTable{apis: key}
	type seen struct{ api, rule, match, within string }
	dup := map[seen]bool{}
	for _, api := range apis {
		c, err := reg.Lookup(api, "", "")
		if err != nil {
			continue
		}
		contracts := []replay.ReplayContract{c.Contract()}
		if l, ok := c.(contractLister); ok {
			contracts = l.Contracts()
		}
		for _, rc := range contracts {
			for _, r := range rc.Rules {
				for _, s := range r.Symptoms {
					k := seen{api, r.ID, s.Match, s.Within}
					re := compile(s.Match)
					if dup[k] || re == nil || s.Match == "" {
						continue
					}
					dup[k] = true
					rules := s.Also
					if !slices.Contains(rules, r.ID) {
						rules = append([]string{r.ID}, rules...)
					}
					sy := symptom{api: api, re: re, rules: rules, fix: Fix(s.Fix), rank: s.Rank}
					if s.Within != "" {
						if sy.within = compile(s.Within); sy.within == nil {
							continue
						}
					}
					t.list = append(t.list, sy)
				}
			}
		}
	}
	sort.SliceStable(t.list, func(i, j int) bool { return t.list[i].rank > t.list[j].rank })
	tables.Store(reg, t)
	return t
}

// compile returns the case-insensitive regexp of a symptom pattern, nil
// when it does not compile.
func compile(expr string) *regexp.Regexp {
	if re, ok := compiled.Load(expr); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile("(?i)" + expr)
	if err != nil {
		re = nil
	}
	compiled.Store(expr, re)
	return re
}

// classify matches msg (read out of body) against the table: the highest
// rank with a match wins; within it, the symptoms of the hinted API, else
// those whose envelope the body has, else the others. The rules of every
// symptom picked are returned in order, each once.
func (t *symptomTable) classify(msg string, body []byte, api string) (Classification, bool) {
	var picks []*symptom
	for i := 0; i < len(t.list); {
		j := i
		for j < len(t.list) && t.list[j].rank == t.list[i].rank {
			j++
		}
		best := 3
		for k := i; k < j; k++ {
			s := &t.list[k]
			if !s.re.MatchString(msg) {
				continue
			}
			g := 2
			switch {
			case api != "" && strings.EqualFold(s.api, api):
				g = 0
			case s.within != nil:
				if !s.within.Match(body) {
					continue
				}
				g = 1
			}
			if g < best {
				best, picks = g, picks[:0]
			}
			if g == best {
				picks = append(picks, s)
			}
		}
		if len(picks) > 0 {
			break
		}
		i = j
	}
	if len(picks) == 0 {
		return Classification{}, false
	}
	var rules []string
	for _, s := range picks {
		for _, r := range s.rules {
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
	}
	return Classification{Rule: rules[0], Rules: rules, Fix: picks[0].fix, Message: msg}, true
}
