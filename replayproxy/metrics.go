package replayproxy

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// family is one Prometheus metric: its name, help text and type.
type family struct{ name, help, typ string }

// The proxy's metrics.
var (
	mRequests       = family{"replay_proxy_requests_total", "Requests answered, by upstream and HTTP status.", "counter"}
	mTurns          = family{"replay_proxy_turns_captured_total", "Turns captured from responses, by upstream, API and whether the turn was complete (only complete turns are stored).", "counter"}
	mRepairs        = family{"replay_proxy_repairs_total", "Repairs of requests, by kind (restored, removed, ambiguous, mismatch, failed, store-error).", "counter"}
	mAudits         = family{"replay_proxy_audits_total", "Audited requests, by verdict (clean, risk, degrade, reject).", "counter"}
	mViolations     = family{"replay_proxy_audit_violations_total", "Audit violations, by rule id and verdict (reject refused in enforce mode, or reported).", "counter"}
	mUpstreamErrors = family{"replay_proxy_upstream_errors_total", "Upstream error responses and failures, by upstream, status (or transport) and the rule Classify names (unknown when none).", "counter"}
	mRetries        = family{"replay_proxy_retries_total", "One-shot retries after a classified upstream error, by rule and fix.", "counter"}
	mUpfront        = family{"replay_proxy_upfront_fixes_total", "Fixes applied before sending because they made an earlier request of the conversation succeed, by rule and fix.", "counter"}
	mRefused        = family{"replay_proxy_refused_total", "Requests the proxy answered itself, by reason (audit, too_large, too_many_streams, malformed_json, unknown_upstream).", "counter"}
	mStoreErrors    = family{"replay_proxy_store_errors_total", "Store operations that failed, were skipped while the store was unavailable, or refused one entry (result entry: a document too large; the store stays in use), by operation.", "counter"}
	mStoreSkipped   = family{"replay_proxy_store_entries_skipped_total", "Store entries skipped because their data could not be used (a record cut short, a value of another type, a document too large or not valid JSON); the store stays in use.", "counter"}
	mInFlight       = family{"replay_proxy_streams_in_flight", "Requests being proxied now (streams included).", "gauge"}
	mStoreUp        = family{"replay_proxy_store_up", "1 while the store answers, 0 while the proxy passes requests through without it.", "gauge"}
)

var families = []family{mRequests, mTurns, mRepairs, mAudits, mViolations, mUpstreamErrors, mRetries, mUpfront, mRefused, mStoreErrors}

// metrics holds the proxy's counters; it is safe for concurrent use.
type metrics struct {
	mu       sync.Mutex
	counters map[string]map[string]uint64 // family name -> rendered labels -> value
	inFlight atomic.Int64
	storeUp  atomic.Bool
	// skipped reads the store's count of entries skipped (nil: none kept).
	skipped func() uint64
}

func newMetrics() *metrics {
	m := &metrics{counters: map[string]map[string]uint64{}}
	m.storeUp.Store(true)
	return m
}

// inc adds one to the counter of f with the labels given as name, value
// pairs.
func (m *metrics) inc(f family, labels ...string) {
	var b strings.Builder
	for i := 0; i+1 < len(labels); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
	}
	m.mu.Lock()
	c := m.counters[f.name]
	if c == nil {
		c = map[string]uint64{}
		m.counters[f.name] = c
	}
	c[b.String()]++
	m.mu.Unlock()
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// writeTo writes every metric in the Prometheus text exposition format,
// series sorted so that the output is stable.
func (m *metrics) writeTo(w io.Writer) {
	var b strings.Builder
	m.mu.Lock()
	for _, f := range families {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
		series := m.counters[f.name]
		keys := make([]string, 0, len(series))
		for k := range series {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s{%s} %d\n", f.name, k, series[k])
		}
	}
	m.mu.Unlock()
	up := 0
	if m.storeUp.Load() {
		up = 1
	}
	fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", mInFlight.name, mInFlight.help, mInFlight.name, mInFlight.typ, mInFlight.name, m.inFlight.Load())
	fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", mStoreUp.name, mStoreUp.help, mStoreUp.name, mStoreUp.typ, mStoreUp.name, up)
	if m.skipped != nil {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", mStoreSkipped.name, mStoreSkipped.help, mStoreSkipped.name, mStoreSkipped.typ, mStoreSkipped.name, m.skipped())
	}
	_, _ = io.WriteString(w, b.String())
}
