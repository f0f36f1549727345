package replayhttp_test

import (
	"net/http"
	"testing"

	"github.com/reasonreplay/replay/internal/repairtest"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var shapes = []repairtest.Shape{repairtest.Tool, repairtest.Text}

// Every API, a MemoryStore: tenants sharing a Transport never see each
// other, whatever they send; in report and in refuse mode.
func TestCrossTenant(t *testing.T) {
	p := repairtest.NewProvider(t)
	for _, mode := range []replayhttp.AuditMode{replayhttp.AuditReport, replayhttp.AuditRefuse} {
		fresh := func(testing.TB) repairtest.Deployment { return repairtest.Library(p, &replayhttp.MemoryStore{}, mode) }
		for _, api := range repairtest.APIs() {
			for _, s := range shapes {
				t.Run(api.Name+"/"+s.String(), func(t *testing.T) {
					repairtest.CrossTenant(t, p, fresh, api, s)
					repairtest.OtherUpstream(t, p, fresh, api, s)
				})
			}
		}
	}
}

// A request without a credential is neither captured nor repaired.
func TestNoCredential(t *testing.T) {
	p := repairtest.NewProvider(t)
	var store *replayhttp.MemoryStore
	fresh := func(testing.TB) repairtest.Deployment {
		store = &replayhttp.MemoryStore{}
		return repairtest.Library(p, store, replayhttp.AuditReport)
	}
	for _, api := range repairtest.APIs() {
		for _, s := range shapes {
			t.Run(api.Name+"/"+s.String(), func(t *testing.T) {
				repairtest.NoCredential(t, p, fresh, api, s, func() int { return store.Len() })
			})
		}
	}
}

// The mangle property, every API, a MemoryStore: whatever a client does
// to the reasoning of a captured turn, the provider receives the capture.
func TestMangleProperty(t *testing.T) {
	p := repairtest.NewProvider(t)
	d := repairtest.Library(p, &replayhttp.MemoryStore{}, replayhttp.AuditRefuse)
	var all []repairtest.Outcome
	for _, api := range repairtest.APIs() {
		for _, s := range shapes {
			t.Run(api.Name+"/"+s.String(), func(t *testing.T) {
				outcomes := repairtest.MangleProperty(t, p, d, api, s, 100)
				for _, o := range outcomes {
					if o.Problem != "" {
						t.Errorf("%s: %s", o.Variant, o.Problem)
					}
				}
				all = append(all, outcomes...)
			})
		}
	}
	t.Log("\n" + repairtest.Table(all))
}

// transportDeployment sends every call of the test through tr.
func transportDeployment(p *repairtest.Provider, tr *replayhttp.Transport) repairtest.Deployment {
	c := &http.Client{Transport: tr}
	return repairtest.Deployment{
		Base:   func(_ *repairtest.API, up int) string { return p.URL(up) },
		Client: func(*repairtest.API) *http.Client { return c },
	}
}

// Transport.Tenant names the tenant in place of the credential: a user
// whose credential rotates (an OAuth token) keeps its captures, another
// user with the same credential has none, and a request it names no
// tenant for is neither captured nor repaired.
func TestTenantFunc(t *testing.T) {
	p := repairtest.NewProvider(t)
	api := repairtest.ByName("anthropic")
	conv := "tenant func"
	echo := func(key string) string {
		return api.Echo(repairtest.Reasoning{Tenant: key, Conv: conv}, repairtest.Tool)
	}
	next := api.Next(conv, repairtest.Strip(api, echo("token-1")), repairtest.Tool)
	withUser := func(d repairtest.Deployment, user string) repairtest.Deployment {
		client := d.Client
		d.Client = func(a *repairtest.API) *http.Client {
			c := *client(a)
			base := c.Transport
			c.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				r = r.Clone(r.Context())
				r.Header.Set("X-User", user)
				return base.RoundTrip(r)
			})
			return &c
		}
		return d
	}
	store := &replayhttp.MemoryStore{}
	byUser := transportDeployment(p, &replayhttp.Transport{Provider: api.Provider, Store: store,
		Tenant: func(r *http.Request) string { return r.Header.Get("X-User") }})
	call := func(d repairtest.Deployment, key, body string) repairtest.Seen {
		return p.Send(t, d, repairtest.Call{API: api, Key: key, Conv: conv, Shape: repairtest.Tool, Body: body})
	}

	call(withUser(byUser, "alice"), "token-1", api.First(conv))
	require.Equal(t, 1, store.Len())
	rotated := call(withUser(byUser, "alice"), "token-2", next)
	assert.True(t, rotated.Restored(), "%+v", rotated)
	for _, s := range api.Secrets(repairtest.Reasoning{Tenant: "token-1", Conv: conv}) {
		assert.Contains(t, string(rotated.Received), s)
	}
	other := call(withUser(byUser, "bob"), "token-1", next)
	assert.False(t, other.Restored(), "%+v", other)
	assert.Equal(t, next, string(other.Received))
	assert.Empty(t, other.Repairs)

	n := store.Len()
	call(withUser(byUser, ""), "token-1", api.First(conv))
	assert.Equal(t, n, store.Len(), "no tenant: not captured")
	none := call(withUser(byUser, ""), "token-1", next)
	assert.Equal(t, next, string(none.Received))
	assert.Empty(t, none.Repairs)

	// Without Tenant, the rotated credential names another tenant.
	byKey := transportDeployment(p, &replayhttp.Transport{Provider: api.Provider, Store: &replayhttp.MemoryStore{}})
	call(byKey, "token-1", api.First(conv))
	seen := call(byKey, "token-2", next)
	assert.False(t, seen.Restored(), "%+v", seen)
	assert.True(t, call(byKey, "token-1", next).Restored())
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Transport.Secret keys the tenants: processes sharing a store find each
// other's captures of a tenant only with the same secret.
func TestSecretScopesSharedStore(t *testing.T) {
	p := repairtest.NewProvider(t)
	api := repairtest.ByName("openai-responses")
	conv := "secret"
	key := "sk-secret-test"
	next := api.Next(conv, repairtest.Strip(api, api.Echo(repairtest.Reasoning{Tenant: key, Conv: conv}, repairtest.Tool)), repairtest.Tool)
	for _, tc := range []struct {
		name           string
		first, second  []byte
		restoredSecond bool
	}{
		{"same secret", []byte("the deployment's secret, 32 bytes or more"), []byte("the deployment's secret, 32 bytes or more"), true},
		{"other secret", []byte("the deployment's secret, 32 bytes or more"), []byte("another deployment's secret, as long"), false},
		{"random secrets", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &replayhttp.MemoryStore{}
			one := transportDeployment(p, &replayhttp.Transport{Provider: api.Provider, Store: store, Secret: tc.first})
			two := transportDeployment(p, &replayhttp.Transport{Provider: api.Provider, Store: store, Secret: tc.second})
			p.Send(t, one, repairtest.Call{API: api, Key: key, Conv: conv, Body: api.First(conv)})
			require.Equal(t, 1, store.Len())
			seen := p.Send(t, two, repairtest.Call{API: api, Key: key, Conv: conv, Body: next})
			assert.Equal(t, tc.restoredSecond, seen.Restored(), "%+v", seen)
			if !tc.restoredSecond {
				assert.Equal(t, next, string(seen.Received))
			}
			assert.True(t, p.Send(t, one, repairtest.Call{API: api, Key: key, Conv: conv, Body: next}).Restored())
		})
	}
}

// 16 conversations of one Gemini agent call the same tool at the same
// step, at once: each gets its own signature back.
func TestConcurrentGeminiConversations(t *testing.T) {
	p := repairtest.NewProvider(t)
	for _, name := range []string{"gemini", "kimi"} {
		t.Run(name, func(t *testing.T) {
			repairtest.Concurrent(t, p, repairtest.Library(p, &replayhttp.MemoryStore{}, replayhttp.AuditRefuse), repairtest.ByName(name), 16)
		})
	}
}
