package replayhttp

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/codecs"
	_ "github.com/reasonreplay/replay/codecs/all"
	"github.com/reasonreplay/replay/internal/benchreq"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
	"github.com/tidwall/gjson"
)

// The request path, function by function, on every codec's request shape
// (the coding agent's tool loop of internal/benchreq, grown to a size),
// each against jsonw.Valid on the same bytes: how much slower than
// validating the body once each step the middleware takes is.
//
//	go test ./replayhttp -run '^$' -bench RequestPath -benchtime 2x
//
// reports, for every shape and step, the share of Valid's speed (CPU time
// from getrusage, Valid and the step alternating in one loop, so that both
// see the same load) and the allocations per conversation element;
// TestRequestPathTable prints them as one table:
//
//	go test ./replayhttp -run TestRequestPathTable -requestpath 5 -v

// pathSize is the size of the request bodies measured.
const pathSize = 540 << 10

// pathCase is one shape's request, read as the middleware reads it, with a
// store that holds a capture of every turn it carries.
type pathCase struct {
	shape    *benchreq.Shape
	body     []byte // the request, every turn as captured
	stripped []byte // the same request, every turn's reasoning stripped by the client
	codec    codecs.HTTPCodec
	rec      codecs.Recognised
	tr       *Transport
	elements int
	prev     *chainEntry // the chain's entry of the request one turn shorter (CaptureGrown)
}

// newPathCase builds the request of s and a Transport whose store holds
// every turn of it as captured (sealed), under its tenant and conversation.
func newPathCase(tb testing.TB, s *benchreq.Shape, size int) *pathCase {
	tb.Helper()
	body, _ := s.Sized(size)
	model := gjson.GetBytes(body, "model").Str
	rec, ok := codecs.Recognise(replay.Default(), http.MethodPost, &url.URL{Scheme: "https", Host: "api.example.com", Path: s.Path}, s.API, model)
	if !ok {
		tb.Fatalf("%s: not recognised", s.API)
	}
	pc := &pathCase{shape: s, body: body, codec: rec.Codec, rec: rec,
		tr: &Transport{Store: &MemoryStore{}, Audit: AuditReport, Secret: []byte("bench")}}
	c := pc.call(body)
	if c.req == nil {
		tb.Fatalf("%s: the request does not read", s.API)
	}
	pc.elements = len(c.req.Elements)
	// The captures: each turn as the request carries it, sealed as the
	// middleware seals what it captures.
	again, err := rec.Codec.ReadRequest(body)
	if err != nil {
		tb.Fatal(err)
	}
	for ti, tu := range again.History.Turns {
		first, _ := c.req.TurnSpan(ti)
		tu.Seal()
		if err := pc.tr.Store.Put(context.Background(), c.scope.key(first), tu.AppendJSON(nil)); err != nil {
			tb.Fatal(err)
		}
	}
	pc.stripped = c.req.Splice(func(_ int, raw []byte) []byte {
		out, _ := rec.Codec.Strip(raw)
		return out
	})
	return pc
}

// call reads body as the middleware does, for the tenant "bench".
func (pc *pathCase) call(body []byte) *call {
	c := &call{codec: pc.rec.Codec, rec: pc.rec}
	c.scope.tenant = "bench"
	c.read(pc.tr, nil, body, nil)
	return c
}

// pathStep is one step of the request path: prep, untimed, makes what
// run takes (the request read once, as the middleware reads it, for the
// steps that follow the read).
type pathStep struct {
	name string
	prep func(tb testing.TB, pc *pathCase) *call
	run  func(tb testing.TB, pc *pathCase, c *call)
	// reset, when set, runs (untimed) right before each run.
	reset func(pc *pathCase)
}

func readAs(body func(*pathCase) []byte) func(testing.TB, *pathCase) *call {
	return func(tb testing.TB, pc *pathCase) *call {
		c := pc.call(body(pc))
		if c.req == nil {
			tb.Fatal("the request does not read")
		}
		return c
	}
}

var (
	asCaptured = readAs(func(pc *pathCase) []byte { return pc.body })
	asStripped = readAs(func(pc *pathCase) []byte { return pc.stripped })
)

// pathSteps are the steps of the request path. DecodeRequest and
// AuditRequest are the public functions on the body's bytes; ReadRequest
// is the middleware's read (the turns and where each element lies);
// Capture (the conversation's digests, cold), CaptureGrown (the same,
// continued from the chain of the request one turn shorter, as the
// Transport's cache does for a growing conversation), Repair (every turn as captured:
// checked against the store, nothing to do), RepairRestore (every turn's
// reasoning stripped by the client, as it was in the request before: put
// back from the store), RepairRestoreCold (the same, the first time: every
// stored turn read and every turn patched), ReadStored (of that, only the
// reading of every stored turn as untrusted input) and Audit (AuditReplay of the
// read request) run on the request read once; Middleware is read, capture,
// repair and audit in a row, from the bytes (the same request each time:
// its chain comes from the Transport's cache, as a retried request's does).
var pathSteps = []pathStep{
	{"DecodeRequest", nil, func(tb testing.TB, pc *pathCase, _ *call) {
		if _, _, err := pc.codec.DecodeRequest(pc.body); err != nil {
			tb.Fatal(err)
		}
	}, nil},
	{"ReadRequest", nil, func(tb testing.TB, pc *pathCase, _ *call) {
		if _, err := pc.codec.ReadRequest(pc.body); err != nil {
			tb.Fatal(err)
		}
	}, nil},
	{"AuditRequest", nil, func(tb testing.TB, pc *pathCase, _ *call) {
		if _, err := replay.Default().AuditRequest(pc.shape.API, pc.body); err != nil {
			tb.Fatal(err)
		}
	}, nil},
	{"Audit", asCaptured, func(tb testing.TB, pc *pathCase, c *call) {
		pc.tr.registry().AuditReplay(c.req.History, c.target)
	}, nil},
	{"Capture", asCaptured, func(tb testing.TB, pc *pathCase, c *call) {
		if len(chain(c.req)) != pc.elements+1 {
			tb.Fatal("the chain has a digest per element")
		}
	}, nil},
	{"CaptureGrown", func(tb testing.TB, pc *pathCase) *call {
		if pc.prev == nil {
			r, err := pc.codec.ReadRequest(pc.shape.Request(pc.shape.Turns(pathSize) - 1))
			if err != nil {
				tb.Fatal(err)
			}
			_, pc.prev, _ = newChainer(r).run(nil, true)
		}
		return asCaptured(tb, pc)
	}, func(tb testing.TB, pc *pathCase, c *call) {
		if d, _, _ := newChainer(c.req).run([]*chainEntry{pc.prev}, true); len(d) != pc.elements+1 {
			tb.Fatal("the chain has a digest per element")
		}
	}, nil},
	{"Repair", asCaptured, func(tb testing.TB, pc *pathCase, c *call) {
		if out, reps := pc.tr.repair(context.Background(), c); !bytes.Equal(out, pc.body) || len(reps) > 0 {
			tb.Fatalf("the request as captured was repaired: %v", reps)
		}
	}, nil},
	{"RepairRestore", asStripped, func(tb testing.TB, pc *pathCase, c *call) {
		if out, _ := pc.tr.repair(context.Background(), c); bytes.Equal(out, pc.stripped) {
			tb.Fatal("nothing was restored")
		}
	}, nil},
	{"RepairRestoreCold", asStripped, func(tb testing.TB, pc *pathCase, c *call) {
		if out, _ := pc.tr.repair(context.Background(), c); bytes.Equal(out, pc.stripped) {
			tb.Fatal("nothing was restored")
		}
	}, func(pc *pathCase) {
		pc.tr.docs = storedCache{} // nothing read yet: every stored turn read, every turn patched
	}},
	{"ReadStored", asStripped, func(tb testing.TB, pc *pathCase, c *call) {
		// What RepairRestoreCold cannot do without: every stored turn
		// the request's turns have, read as untrusted input (validated,
		// parsed, each item's digest checked).
		for ti := range c.req.History.Turns {
			first, _ := c.req.TurnSpan(ti)
			docs, _, err := storeGet(context.Background(), pc.tr.Store, nil, c.scope.key(first))
			if err != nil || len(docs) == 0 {
				tb.Fatalf("turn %d: no stored turn (%v)", ti, err)
			}
			for _, d := range docs {
				if _, err := pc.tr.readStored(view.String(d)); err != nil { // a MemoryStore's own bytes
					tb.Fatal(err)
				}
			}
		}
	}, nil},
	{"Middleware", nil, func(tb testing.TB, pc *pathCase, _ *call) {
		c := pc.call(pc.body)
		if out, _ := pc.tr.repair(context.Background(), c); !bytes.Equal(out, pc.body) {
			tb.Fatal("repaired")
		}
		pc.tr.registry().AuditReplay(c.req.History, c.target)
		_ = c.scope.key(len(c.req.Elements))
	}, nil},
}

// usage is the process's CPU time (user and system) and its minor page
// faults so far.
func usage() (time.Duration, int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Minflt
}

// cpuTime is the process's CPU time (user and system).
func cpuTime() time.Duration {
	t, _ := usage()
	return t
}

// pathFigures are one step's measures on one shape.
type pathFigures struct {
	share, validMBs, mbs, allocsPerElement, faultsPerRun float64
}

// pathRun is what measureStep measured of n runs of a step.
type pathRun struct {
	n           int
	valid, step time.Duration
	allocs      uint64
	faults      int64
}

// measureStep runs Valid and the step alternately n times and returns
// their CPU times, the step's allocations and the page faults of the
// whole. What the step runs on is prepared first, and the garbage so far
// collected, untimed: the timed runs pay for the collections of what the
// step itself allocates, not of what its preparation or the step measured
// before it did. That collection leaves a heap goal set by what is live
// then, and the runtime returns to the system what lies above it: the
// step's first runs would get their memory back page fault by page fault,
// which a process that runs the step over and over does not pay (on this
// kind of virtual machine a fault costs 10 to 20 microseconds: 70 of them
// are twice Valid's time on a 540 KB body). So the step runs settleRuns
// times more, untimed, on one more prepared input, before the timed runs.
func measureStep(tb testing.TB, pc *pathCase, st pathStep, n int) pathRun {
	var ms runtime.MemStats
	calls := make([]*call, n+1)
	if st.prep != nil {
		for i := range calls {
			calls[i] = st.prep(tb, pc)
		}
	}
	runtime.GC()
	for range settleRuns {
		if st.reset != nil {
			st.reset(pc)
		}
		st.run(tb, pc, calls[n])
	}
	pr := pathRun{n: n}
	_, f0 := usage()
	for _, c := range calls[:n] {
		if st.reset != nil {
			st.reset(pc)
		}
		v, s, a := againstValid(tb, &ms, pc.body, func() { st.run(tb, pc, c) })
		pr.valid, pr.step, pr.allocs = pr.valid+v, pr.step+s, pr.allocs+a
	}
	_, f1 := usage()
	pr.faults = f1 - f0
	return pr
}

// settleRuns is how many times measureStep runs a step, untimed, after
// collecting the garbage of its preparation: at 540 KB, RepairRestore's
// faults fall from about 100 a run to under 5 by the 48th run.
const settleRuns = 48

// pathIters is how many timed runs measureStep makes of a step in one
// round: enough that the collections a step's allocations set off
// (repair's new body: about the request's size) land in its runs in
// proportion, not by chance.
const pathIters = 24

// againstValid times jsonw.Valid on body, then run, and counts run's
// allocations (ms is scratch).
func againstValid(tb testing.TB, ms *runtime.MemStats, body []byte, run func()) (valid, step time.Duration, allocs uint64) {
	t0 := cpuTime()
	if !jsonw.ValidBytes(body) {
		tb.Fatal("invalid body")
	}
	t1 := cpuTime()
	runtime.ReadMemStats(ms)
	a := ms.Mallocs
	t2 := cpuTime()
	run()
	t3 := cpuTime()
	runtime.ReadMemStats(ms)
	return t1 - t0, t3 - t2, ms.Mallocs - a
}

func figures(pc *pathCase, pr pathRun) pathFigures {
	mb := float64(len(pc.body)) * float64(pr.n) / 1e6
	return pathFigures{
		share:            pr.valid.Seconds() / pr.step.Seconds(),
		validMBs:         mb / pr.valid.Seconds(),
		mbs:              mb / pr.step.Seconds(),
		allocsPerElement: float64(pr.allocs) / float64(pr.n) / float64(pc.elements),
		faultsPerRun:     float64(pr.faults) / float64(pr.n),
	}
}

// BenchmarkRequestPath times the steps of TestRequestPathTable; one
// iteration is one round of measureStep (pathIters timed runs, with their
// preparation and settling). Its own metrics (%valid, cpu-MB/s,
// allocs/element, faults/run) are per timed run; the framework's ns/op,
// B/op, allocs/op and MB/s are the whole round's.
func BenchmarkRequestPath(b *testing.B) {
	for _, s := range benchreq.Shapes() {
		pc := newPathCase(b, s, pathSize)
		for _, st := range pathSteps {
			b.Run(s.API+"/"+st.name, func(b *testing.B) {
				b.SetBytes(int64(len(pc.body)) * pathIters)
				b.ReportAllocs()
				all := pathRun{}
				for b.Loop() {
					pr := measureStep(b, pc, st, pathIters)
					all.n += pr.n
					all.valid, all.step, all.allocs, all.faults = all.valid+pr.valid, all.step+pr.step, all.allocs+pr.allocs, all.faults+pr.faults
				}
				f := figures(pc, all)
				b.ReportMetric(100*f.share, "%valid")
				b.ReportMetric(f.mbs, "cpu-MB/s")
				b.ReportMetric(f.allocsPerElement, "allocs/element")
				b.ReportMetric(f.faultsPerRun, "faults/run")
			})
		}
	}
}

var (
	pathRounds = flag.Int("requestpath", 0, "rounds of TestRequestPathTable (0 skips it)")
	pathShapes = flag.String("requestpath.shapes", "", "the shapes TestRequestPathTable measures, comma-separated (all when empty)")
)

// TestRequestPathTable prints the request path's table: for every shape
// and step, the median over the rounds of the share of Valid's speed, the
// CPU speeds and the allocations per conversation element. A row under a
// third of Valid's speed, or at one allocation per element or more, is
// marked. A round is one measureStep of each step.
func TestRequestPathTable(t *testing.T) {
	if *pathRounds == 0 {
		t.Skip("-requestpath N runs it")
	}
	var rows []string
	for _, s := range benchreq.Shapes() {
		if *pathShapes != "" && !slices.Contains(strings.Split(*pathShapes, ","), s.API) {
			continue
		}
		pc := newPathCase(t, s, pathSize)
		figs := make([][]pathFigures, len(pathSteps))
		for r := 0; r < *pathRounds; r++ {
			for i, st := range pathSteps {
				figs[i] = append(figs[i], figures(pc, measureStep(t, pc, st, pathIters)))
			}
		}
		for i, st := range pathSteps {
			f := medianFigures(figs[i])
			mark := ""
			if f.share < 1.0/3 {
				mark += " (slow)"
			}
			if f.allocsPerElement >= 1 {
				mark += " (allocs)"
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %d | %.0f | %.0f | %.0f%% | %.2f | %.1f |%s", s.API, st.name, len(pc.body), f.validMBs, f.mbs, 100*f.share, f.allocsPerElement, f.faultsPerRun, mark))
		}
	}
	t.Logf("\n| shape | step | bytes | Valid MB/s | step MB/s | share of Valid | allocs/element | faults/run |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n%s", strings.Join(rows, "\n"))
}

func medianFigures(fs []pathFigures) pathFigures {
	med := func(get func(pathFigures) float64) float64 {
		v := make([]float64, len(fs))
		for i, f := range fs {
			v[i] = get(f)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return pathFigures{
		share:            med(func(f pathFigures) float64 { return f.share }),
		validMBs:         med(func(f pathFigures) float64 { return f.validMBs }),
		mbs:              med(func(f pathFigures) float64 { return f.mbs }),
		allocsPerElement: med(func(f pathFigures) float64 { return f.allocsPerElement }),
		faultsPerRun:     med(func(f pathFigures) float64 { return f.faultsPerRun }),
	}
}

// BenchmarkRequestPathViolations is AuditRequest on a request that breaks
// a rule at every turn: the Gemini shape with every thoughtSignature
// re-encoded in the URL-safe alphabet (gemini/bad-base64 at each), against
// the same request as sent (none), each with its share of Valid's speed
// and, for the corrupt one, the allocations per violation beyond the
// valid request's.
//
//	go test ./replayhttp -run '^$' -bench RequestPathViolations -benchtime 50x
func BenchmarkRequestPathViolations(b *testing.B) {
	var s *benchreq.Shape
	for _, x := range benchreq.Shapes() {
		if x.API == "gemini" {
			s = x
		}
	}
	body, _ := s.Sized(pathSize)
	sig := []byte(`"thoughtSignature":"`)
	bad := bytes.Clone(body)
	signed := 0
	for i := 0; ; {
		j := bytes.Index(bad[i:], sig)
		if j < 0 {
			break
		}
		i += j + len(sig)
		// The signature's first '+' or '/' in the URL-safe alphabet.
		end := i + bytes.IndexByte(bad[i:], '"')
		k := bytes.IndexAny(bad[i:end], "+/")
		if k < 0 {
			b.Fatal("a signature without + or /")
		}
		bad[i+k] = map[byte]byte{'+': '-', '/': '_'}[bad[i+k]]
		signed++
	}
	var perValid float64
	for _, c := range []struct {
		name       string
		body       []byte
		violations int
	}{{"valid", body, 0}, {"corrupt", bad, signed}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			var valid, step time.Duration
			var ms runtime.MemStats
			var allocs uint64
			n := 0
			for b.Loop() {
				var rep replay.Report
				var err error
				v, st, a := againstValid(b, &ms, c.body, func() { rep, err = replay.Default().AuditRequest(s.API, c.body) })
				if err != nil || len(rep.Violations) != c.violations {
					b.Fatalf("%d violations, want %d (%v)", len(rep.Violations), c.violations, err)
				}
				valid, step, allocs = valid+v, step+st, allocs+a
				n++
			}
			b.ReportMetric(100*valid.Seconds()/step.Seconds(), "%valid")
			per := float64(allocs) / float64(n)
			if c.violations == 0 {
				perValid = per
				return
			}
			b.ReportMetric((per-perValid)/float64(c.violations), "allocs/violation")
		})
	}
}
