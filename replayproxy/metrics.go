package replayproxy

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// family is one of the proxy's counters: its name, help text and label
// names.
type family struct {
	name, help string
	labels     []string
}

// The proxy's counters.
var (
	mRequests       = family{"replay_proxy_requests_total", "Requests answered, by upstream and HTTP status.", []string{"upstream", "status"}}
	mTurns          = family{"replay_proxy_turns_captured_total", "Turns captured from responses, by upstream, API and whether the turn was complete (only complete turns are stored).", []string{"upstream", "api", "complete"}}
	mRepairs        = family{"replay_proxy_repairs_total", "Repairs of requests, by kind (restored, removed, ambiguous, mismatch, failed, store-error).", []string{"kind"}}
	mAudits         = family{"replay_proxy_audits_total", "Audited requests, by verdict (clean, risk, degrade, reject).", []string{"verdict"}}
	mViolations     = family{"replay_proxy_audit_violations_total", "Audit violations, by rule id and verdict (reject refused in enforce mode, or reported).", []string{"rule", "verdict"}}
	mUpstreamErrors = family{"replay_proxy_upstream_errors_total", "Upstream error responses and failures, by upstream, status (or transport) and the rule Classify names (unknown when none).", []string{"upstream", "status", "rule"}}
	mRetries        = family{"replay_proxy_retries_total", "One-shot retries after a classified upstream error, by rule and fix.", []string{"rule", "fix"}}
	mUpfront        = family{"replay_proxy_upfront_fixes_total", "Fixes applied before sending because they made an earlier request of the conversation succeed, by rule and fix.", []string{"rule", "fix"}}
	mRefused        = family{"replay_proxy_refused_total", "Requests the proxy answered itself, by reason (audit, too_large, over_budget, too_many_streams, malformed_json, bad_encoding, method, unknown_upstream, bad_path, slow_body).", []string{"reason"}}
	mStoreErrors    = family{"replay_proxy_store_errors_total", "Store operations that failed, were skipped while the store was unavailable (result skipped), or refused one entry (result entry: a document too large; the store stays in use), by operation and result.", []string{"op", "result"}}
)

var families = []family{mRequests, mTurns, mRepairs, mAudits, mViolations, mUpstreamErrors, mRetries, mUpfront, mRefused, mStoreErrors}

// histogram labels: the upstream, the API the request was read as, and
// the model it names (at most maxModels distinct models per upstream; the
// rest are "other", so that a client cannot grow the series without
// bound).
var timingLabels = []string{"upstream", "api", "model"}

const maxModels = 64

// latencyBuckets cover a refusal in a millisecond to a long stream.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// metrics holds the proxy's Prometheus collectors, registered on a
// registry of their own (with the Go runtime, process and build
// information collectors); it is safe for concurrent use.
type metrics struct {
	reg      *prometheus.Registry
	counters map[string]*prometheus.CounterVec
	duration *prometheus.HistogramVec
	ttfb     *prometheus.HistogramVec
	upstream *prometheus.HistogramVec
	inFlight gaugeInt
	inBytes  gaugeInt
	storeUp  gaugeBool

	mu     sync.Mutex
	models map[string]map[string]bool // upstream -> models seen
}

// gaugeInt is a gauge moved by whole steps.
type gaugeInt struct{ prometheus.Gauge }

func (g gaugeInt) Add(n int64) { g.Gauge.Add(float64(n)) }

// gaugeBool is a gauge that is 1 or 0.
type gaugeBool struct{ prometheus.Gauge }

func (g gaugeBool) Store(up bool) {
	if up {
		g.Set(1)
	} else {
		g.Set(0)
	}
}

func newMetrics(version string) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), counters: map[string]*prometheus.CounterVec{}, models: map[string]map[string]bool{}}
	for _, f := range families {
		cv := prometheus.NewCounterVec(prometheus.CounterOpts{Name: f.name, Help: f.help}, f.labels)
		m.counters[f.name] = cv
		m.reg.MustRegister(cv)
	}
	hist := func(name, help string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: latencyBuckets}, timingLabels)
		m.reg.MustRegister(h)
		return h
	}
	m.duration = hist("replay_proxy_request_duration_seconds", "Time from a request's arrival to the end of its answer (a stream's last byte), by upstream, API and model.")
	m.ttfb = hist("replay_proxy_time_to_first_byte_seconds", "Time from a request's arrival to the first byte of its answer's body written to the client, by upstream, API and model.")
	m.upstream = hist("replay_proxy_upstream_duration_seconds", "Time from a request sent upstream (repaired and audited) to the end of the upstream's answer, by upstream, API and model.")
	inFlight := prometheus.NewGauge(prometheus.GaugeOpts{Name: "replay_proxy_streams_in_flight", Help: "Requests being proxied now (streams included)."})
	inBytes := prometheus.NewGauge(prometheus.GaugeOpts{Name: "replay_proxy_inflight_body_bytes", Help: "Bytes of request bodies held now, counted against --max-inflight-bytes (four times each body: the body and the working copies made of it)."})
	storeUp := prometheus.NewGauge(prometheus.GaugeOpts{Name: "replay_proxy_store_up", Help: "1 while the store answers, 0 while the proxy passes requests through without it."})
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "replay_proxy_build_info", Help: "1, labelled with the proxy's version.", ConstLabels: prometheus.Labels{"version": version}})
	info.Set(1)
	m.reg.MustRegister(inFlight, inBytes, storeUp, info,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewBuildInfoCollector())
	m.inFlight, m.inBytes, m.storeUp = gaugeInt{inFlight}, gaugeInt{inBytes}, gaugeBool{storeUp}
	m.storeUp.Store(true)
	return m
}

// inc adds one to the counter of f with the labels given as name, value
// pairs.
func (m *metrics) inc(f family, labels ...string) {
	l := make(prometheus.Labels, len(labels)/2)
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	m.counters[f.name].With(l).Inc()
}

// model returns the model label for a request to upstream: the model, or
// "other" past maxModels distinct ones, or "unknown".
func (m *metrics) model(upstream, model string) string {
	if model == "" {
		return "unknown"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := m.models[upstream]
	if seen == nil {
		seen = map[string]bool{}
		m.models[upstream] = seen
	}
	if !seen[model] {
		if len(seen) >= maxModels {
			return "other"
		}
		seen[model] = true
	}
	return model
}

// observe records a request's timings; a zero duration is left out.
func (m *metrics) observe(upstream, api, model string, total, ttfb, up time.Duration) {
	l := prometheus.Labels{"upstream": upstream, "api": api, "model": m.model(upstream, model)}
	m.duration.With(l).Observe(total.Seconds())
	if ttfb > 0 {
		m.ttfb.With(l).Observe(ttfb.Seconds())
	}
	if up > 0 {
		m.upstream.With(l).Observe(up.Seconds())
	}
}

// countSkipped reports the store's count of entries skipped because their
// data could not be used (a store that keeps one has SkippedEntries).
func (m *metrics) countSkipped(count func() uint64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "replay_proxy_store_entries_skipped_total",
		Help: "Store entries skipped because their data could not be used (a record cut short, a value of another type, a document too large or not valid JSON); the store stays in use."},
		func() float64 { return float64(count()) }))
}
