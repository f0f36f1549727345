package repairtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	"github.com/reasonreplay/replay/internal/itemdigest"
	"github.com/reasonreplay/replay/internal/jsonw"
)

// Blocks renders a turn as the checks compare it: each reasoning item by
// its kind and the digest of its replay bytes (but the items owned
// picks), each tool call by its id, the id of the item that carries it,
// its name and its arguments, each text by its id and text, in order.
func Blocks(t *replay.Turn, owned func(replay.ReasoningItem) bool) []string {
	var out []string
	for _, b := range t.Blocks {
		switch b := b.(type) {
		case replay.ReasoningItem:
			if owned != nil && owned(b) {
				continue
			}
			out = append(out, "reasoning "+string(b.Kind())+" "+itemdigest.Of(b))
		case *replay.ToolCall:
			out = append(out, "call "+b.ID+" item="+b.ItemID+" "+b.Name+" "+compact(b.Arguments))
		case *replay.Text:
			out = append(out, "text id="+b.ID+" "+b.Text)
		case *replay.Native:
			out = append(out, "native "+b.Kind+" "+compact(string(b.Raw)))
		default:
			out = append(out, fmt.Sprintf("%T", b))
		}
	}
	return out
}

func compact(s string) string {
	if !jsonw.Valid(s) {
		return s
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

// Captured returns the turn the provider answered r with, as the API's
// codec decodes it: what the store keeps.
func Captured(api *API, r Reasoning, s Shape) *replay.Turn {
	body, _ := api.Respond(r, s)
	t, err := Codec(api).Decode([]byte(body))
	if err != nil {
		panic(fmt.Sprintf("%s: decoding the provider's answer: %v", api.Name, err))
	}
	return t
}

// turnOf reads a request body's only model turn: the request, the turn,
// and the turn's first element and the one past its last.
func turnOf(api *API, body []byte) (*codecs.Request, *replay.Turn, int, int, error) {
	r, err := Codec(api).ReadRequest(body)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	if len(r.History.Turns) != 1 {
		return nil, nil, 0, 0, fmt.Errorf("%d model turns in the request, want 1", len(r.History.Turns))
	}
	first, end := r.TurnSpan(0)
	return r, r.History.Turns[0], first, end, nil
}

// Audit audits a request body for the API as the middleware does.
func Audit(api *API, body []byte) (replay.Report, error) {
	r, err := Codec(api).ReadRequest(body)
	if err != nil {
		return replay.Report{}, err
	}
	tg := r.Target
	if tg.API == "" {
		tg.API = api.Codec
	}
	if tg.Model == "" {
		tg.Model = api.Model
	}
	if tg.Provider == "" {
		tg.Provider = api.Provider
	}
	return replay.Default().AuditReplay(r.History, tg), nil
}

// CheckRestored says what is wrong with got, the body the provider
// received for sent, a request whose model turn the client damaged: the
// turn must be want (the capture) block for block, every secret of the
// capture must be there byte for byte, every byte outside the turn as
// sent, and the audit must not reject it. "" when nothing is.
func CheckRestored(api *API, sent, got []byte, want *replay.Turn, secrets []string) string {
	if got == nil {
		return "nothing reached the provider"
	}
	rs, ts, fs, es, err := turnOf(api, sent)
	if err != nil {
		return "the request sent: " + err.Error()
	}
	rg, tg, fg, eg, err := turnOf(api, got)
	if err != nil {
		return "the request received: " + err.Error()
	}
	_ = ts
	var problems []string
	if a, b := got[:rg.Elements[fg].Start], sent[:rs.Elements[fs].Start]; !bytes.Equal(a, b) {
		problems = append(problems, "the bytes before the turn changed")
	}
	if a, b := got[rg.Elements[eg-1].End:], sent[rs.Elements[es-1].End:]; !bytes.Equal(a, b) {
		problems = append(problems, "the bytes after the turn changed")
	}
	if g, w := Blocks(tg, api.ClientOwned), Blocks(want, api.ClientOwned); !slices.Equal(g, w) {
		problems = append(problems, fmt.Sprintf("the turn is\n\t%s\nwant the capture\n\t%s", strings.Join(g, "\n\t"), strings.Join(w, "\n\t")))
	}
	for _, s := range secrets {
		if !restores(want, api.ClientOwned, s) {
			continue
		}
		if !bytes.Contains(got, []byte(s)) {
			problems = append(problems, fmt.Sprintf("the captured bytes %.24q... are missing", s))
		}
	}
	rep, err := Audit(api, got)
	if err != nil {
		problems = append(problems, "audit: "+err.Error())
	}
	if rep.Rejects() {
		problems = append(problems, "the audit rejects it: "+verdict(rep))
	}
	return strings.Join(problems, "; ")
}

// restores reports whether the replay bytes of an item of t that repair
// restores hold s.
func restores(t *replay.Turn, owned func(replay.ReasoningItem) bool, s string) bool {
	for _, it := range t.Items() {
		if (owned == nil || !owned(it)) && bytes.Contains(it.AppendWire(nil), []byte(s)) {
			return true
		}
	}
	return false
}

// Outcome is what became of one damaged turn.
type Outcome struct {
	API     string
	Shape   Shape
	Variant string
	// Restored: the provider received the capture, and the repair was
	// reported.
	Restored bool
	// Refused: the middleware refused the request, with a report.
	Refused bool
	// Kept: only reasoning the client owns (API.ClientOwned) differed
	// from the capture, and the request went out as the client sent it.
	Kept bool
	// Problem says what was wrong; "" for a restored turn.
	Problem string
}

// MangleProperty runs the mangle property for api through d: a
// tenant's tool loop is captured, then its next request sent with the
// turn as a faithful client keeps it (it must go out untouched), without
// its reasoning, and damaged in every way of api.Variants (each mangle,
// every pair, all at once, and a random combination per seed). Each must
// reach the provider as captured (CheckRestored) with a restored repair
// reported, or be refused with a report; it returns what became of
// each, the restored ones first checked.
func MangleProperty(t *testing.T, p *Provider, d Deployment, api *API, s Shape, seeds int) []Outcome {
	t.Helper()
	key := "sk-mangle-" + strings.ReplaceAll(api.Name, "-", "")
	if api.Name == "bedrock-converse" {
		key = "AKIAMANGLE" + s.String()
	}
	conv := "mangle " + api.Name + " " + s.String()
	r := Reasoning{Tenant: key, Conv: conv}
	call := func(body string) Seen {
		return p.Send(t, d, Call{API: api, Key: key, Conv: conv, Shape: s, Body: body})
	}
	first := call(api.First(conv))
	if first.Refused != "" || first.Status != 200 {
		t.Fatalf("%s: the first request failed: %+v", api.Name, first)
	}
	want := Captured(api, r, s)
	echo := api.Echo(r, s)

	faithful := api.Next(conv, echo, s)
	seen := call(faithful)
	if string(seen.Received) != faithful || seen.Restored() || seen.Refused != "" {
		t.Errorf("%s %s: the faithful turn did not go out untouched: %+v\nsent %s\ngot  %s", api.Name, s, seen, faithful, seen.Received)
	}
	var out []Outcome
	check := func(name, echo string) {
		body := api.Next(conv, echo, s)
		seen := call(body)
		o := Outcome{API: api.Name, Shape: s, Variant: name}
		if _, sent, _, _, err := turnOf(api, []byte(body)); err == nil && slices.Equal(Blocks(sent, api.ClientOwned), Blocks(want, api.ClientOwned)) {
			// Only what the client owns differs: it goes out as sent.
			o.Kept = true
			if string(seen.Received) != body || seen.Restored() || seen.Refused != "" {
				o.Problem = fmt.Sprintf("the client's own reasoning did not go out untouched: %+v", seen)
			}
			out = append(out, o)
			return
		}
		switch {
		case seen.Refused != "":
			o.Refused, o.Problem = true, "refused: "+seen.Refused
		default:
			o.Problem = CheckRestored(api, []byte(body), seen.Received, want, api.Secrets(r))
			if o.Problem == "" && !seen.Restored() {
				o.Problem = fmt.Sprintf("restored without a report: %+v", seen)
			}
			o.Restored = o.Problem == ""
		}
		out = append(out, o)
	}
	check("reasoning stripped", Strip(api, echo))
	check("no reasoning at all", Bare(api, echo))
	for _, v := range api.Variants(echo, seeds) {
		check(v.Name, v.Echo)
	}
	return out
}

// Table renders outcomes as a Markdown table: for each API, each single
// mangle (and "reasoning stripped", "no reasoning at all") by shape of
// turn, then a line counting the combinations and what became of them.
func Table(outcomes []Outcome) string {
	type row struct{ api, variant string }
	cells := map[row]map[Shape]string{}
	var order []row
	combos := map[string][3]int{} // restored, kept, other
	var apis []string
	for _, o := range outcomes {
		if !slices.Contains(apis, o.API) {
			apis = append(apis, o.API)
		}
		what := "restored"
		switch {
		case o.Problem != "":
			what = "**FAILED**"
		case o.Kept:
			what = "client's, sent as is"
		case o.Refused:
			what = "refused"
		}
		if strings.Contains(o.Variant, " + ") {
			c := combos[o.API]
			switch what {
			case "restored":
				c[0]++
			case "client's, sent as is":
				c[1]++
			default:
				c[2]++
			}
			combos[o.API] = c
			continue
		}
		r := row{o.API, o.Variant}
		if cells[r] == nil {
			cells[r] = map[Shape]string{}
			order = append(order, r)
		}
		cells[r][o.Shape] = what
	}
	var b strings.Builder
	b.WriteString("| API | damage | tool turn | text turn |\n| --- | --- | --- | --- |\n")
	for _, api := range apis {
		for _, r := range order {
			if r.api != api {
				continue
			}
			cell := func(s Shape) string {
				if v, ok := cells[r][s]; ok {
					return v
				}
				return "(no such damage)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", api, r.variant, cell(Tool), cell(Text))
		}
		c := combos[api]
		fmt.Fprintf(&b, "| %s | %d combinations | %d restored, %d client's, %d other | |\n", api, c[0]+c[1]+c[2], c[0], c[1], c[2])
	}
	return b.String()
}
