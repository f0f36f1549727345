package repairtest

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Fresh makes a new deployment with an empty store of its own.
type Fresh func(t testing.TB) Deployment

// Keys returns the credentials of two tenants for api (an AWS access key
// id for Bedrock, an API key for the others).
func Keys(api *API) (a, b string) {
	if api.Codec == "bedrock-converse" {
		return "AKIATENANTAAAAAAAAAA", "AKIATENANTBBBBBBBBBB"
	}
	n := strings.ReplaceAll(api.Name, "-", "")
	return "sk-tenant-a-" + n, "sk-tenant-b-" + n
}

// step is one call of a tenant: its conversation's first request, or its
// next with the model's turn as given.
type step struct {
	name string
	body string
}

// script is what one tenant sends, in order.
type script struct {
	key   string
	steps []step
}

func (sc script) run(t *testing.T, p *Provider, d Deployment, api *API, conv string, s Shape, upstream int) []Seen {
	t.Helper()
	var out []Seen
	for _, st := range sc.steps {
		out = append(out, p.Send(t, d, Call{API: api, Key: sc.key, Conv: conv, Shape: s, Body: st.body, Upstream: upstream}))
	}
	return out
}

// interleave runs a and b in one deployment, a step of each in turn (a
// first), and returns what each saw.
func interleave(t *testing.T, p *Provider, d Deployment, api *API, conv string, s Shape, a, b script) ([]Seen, []Seen) {
	t.Helper()
	var sa, sb []Seen
	for i := 0; i < len(a.steps) || i < len(b.steps); i++ {
		if i < len(a.steps) {
			sa = append(sa, script{a.key, a.steps[i : i+1]}.run(t, p, d, api, conv, s, 0)...)
		}
		if i < len(b.steps) {
			sb = append(sb, script{b.key, b.steps[i : i+1]}.run(t, p, d, api, conv, s, 0)...)
		}
	}
	return sa, sb
}

// CrossTenant checks that tenants sharing a deployment never see each
// other: tenant A runs its tool loop (a first request, then its next
// ones with the turn stripped and damaged), while tenant B, whose
// conversation shows exactly what A's shows (the same prompts, the same
// visible answer, the same tool-call ids: Kimi's functions.name:0, Gemini
// calls without ids), sends its next request without having made the
// first (the turn stripped, or with reasoning of its own making, or
// damaged), then runs its own loop. Each tenant must see exactly what it
// sees in a deployment of its own (the bodies the provider receives, the
// response headers, the repairs, the audit), and no body of one may hold
// a byte of the other's reasoning. Both tenants' loops are checked to
// restore, so that the comparison is not one of two empty results.
func CrossTenant(t *testing.T, p *Provider, fresh Fresh, api *API, s Shape) {
	t.Helper()
	keyA, keyB := Keys(api)
	conv := "shared " + api.Name + " " + s.String()
	ra, rb := Reasoning{Tenant: keyA, Conv: conv}, Reasoning{Tenant: keyB, Conv: conv}
	stripped := Bare(api, api.Echo(ra, s))
	if other := Bare(api, api.Echo(rb, s)); other != stripped {
		t.Fatalf("%s: the tenants' turns do not show the same:\n%s\n%s", api.Name, stripped, other)
	}
	all := func(echo string) string {
		for _, m := range api.Mangles {
			echo = m.Apply(echo)
		}
		return echo
	}
	first := step{"first", api.First(conv)}
	next := func(name, echo string) step { return step{name, api.Next(conv, echo, s)} }
	a := script{keyA, []step{first, next("stripped", stripped), next("damaged", all(api.Echo(ra, s)))}}
	guesses := script{keyB, []step{next("guess: stripped", stripped), next("guess: its own bytes", api.Echo(rb, s)),
		next("guess: damaged", all(api.Echo(rb, s)))}}
	own := script{keyB, []step{first, next("stripped", stripped), next("damaged", all(api.Echo(rb, s)))}}

	for _, b := range []struct {
		name string
		sc   script
	}{{"B guesses", guesses}, {"B runs its own loop", own}} {
		sharedA, sharedB := interleave(t, p, fresh(t), api, conv, s, a, b.sc)
		aloneA := a.run(t, p, fresh(t), api, conv, s, 0)
		aloneB := b.sc.run(t, p, fresh(t), api, conv, s, 0)
		for i, st := range a.steps {
			if !reflect.DeepEqual(sharedA[i], aloneA[i]) {
				t.Errorf("%s %s (%s): tenant A's %s differs with B beside it:\nshared %+v\nalone  %+v", api.Name, s, b.name, st.name, sharedA[i], aloneA[i])
			}
		}
		for i, st := range b.sc.steps {
			if !reflect.DeepEqual(sharedB[i], aloneB[i]) {
				t.Errorf("%s %s (%s): tenant B's %s differs with A beside it:\nshared %+v\nalone  %+v", api.Name, s, b.name, st.name, sharedB[i], aloneB[i])
			}
		}
		leaks(t, api, "A", sharedA, rb)
		leaks(t, api, "B", sharedB, ra)
		if !sharedA[1].Restored() || !sharedA[2].Restored() {
			t.Errorf("%s %s: tenant A's own turn was not restored: %+v", api.Name, s, sharedA[1:])
		}
		if b.sc.steps[0].name == "first" && (!sharedB[1].Restored() || !sharedB[2].Restored()) {
			t.Errorf("%s %s: tenant B's own turn was not restored: %+v", api.Name, s, sharedB[1:])
		}
		if b.sc.steps[0].name != "first" {
			for i, seen := range sharedB {
				if seen.Restored() {
					t.Errorf("%s %s: tenant B's %s was restored without a capture of its own: %+v", api.Name, s, b.sc.steps[i].name, seen)
				}
			}
		}
	}
}

// leaks fails the test when a body the provider received for tenant who
// holds a byte string of r's reasoning.
func leaks(t *testing.T, api *API, who string, seen []Seen, r Reasoning) {
	t.Helper()
	for i, s := range seen {
		for _, secret := range api.Secrets(r) {
			if bytes.Contains(s.Received, []byte(secret)) {
				t.Errorf("%s: call %d of tenant %s carried the other tenant's %.24q...", api.Name, i, who, secret)
			}
		}
	}
}

// OtherUpstream checks that one credential on two upstreams (two hosts)
// names two tenants: a turn captured through the first is not restored
// into a request to the second, which sees what it sees in a deployment
// where nothing was captured.
func OtherUpstream(t *testing.T, p *Provider, fresh Fresh, api *API, s Shape) {
	t.Helper()
	key, _ := Keys(api)
	conv := "upstreams " + api.Name + " " + s.String()
	next := api.Next(conv, Bare(api, api.Echo(Reasoning{Tenant: key, Conv: conv}, s)), s)
	d := fresh(t)
	p.Send(t, d, Call{API: api, Key: key, Conv: conv, Shape: s, Body: api.First(conv)})
	other := p.Send(t, d, Call{API: api, Key: key, Conv: conv, Shape: s, Body: next, Upstream: 1})
	alone := p.Send(t, fresh(t), Call{API: api, Key: key, Conv: conv, Shape: s, Body: next, Upstream: 1})
	if !reflect.DeepEqual(other, alone) {
		t.Errorf("%s %s: the second upstream's request differs with the first's capture beside it:\nshared %+v\nalone  %+v", api.Name, s, other, alone)
	}
	if other.Restored() || other.Refused == "" && string(other.Received) != next {
		t.Errorf("%s %s: the second upstream got the first one's capture: %+v", api.Name, s, other)
	}
	same := p.Send(t, d, Call{API: api, Key: key, Conv: conv, Shape: s, Body: next})
	if !same.Restored() {
		t.Errorf("%s %s: the first upstream's own turn was not restored: %+v", api.Name, s, same)
	}
}

// NoCredential checks that a request without a credential is neither
// captured nor repaired: its turn is not restored into its own next
// request nor into a tenant's, and a tenant's capture is not restored
// into it. count, when set, returns the number of turns the deployment's
// store holds.
func NoCredential(t *testing.T, p *Provider, fresh Fresh, api *API, s Shape, count func() int) {
	t.Helper()
	key, _ := Keys(api)
	conv := "anonymous " + api.Name + " " + s.String()
	next := api.Next(conv, Bare(api, api.Echo(Reasoning{Conv: conv}, s)), s)
	d := fresh(t)
	before := 0
	if count != nil {
		before = count()
	}
	first := p.Send(t, d, Call{API: api, Conv: conv, Shape: s, Body: api.First(conv)})
	if first.Status != 200 {
		t.Fatalf("%s: %+v", api.Name, first)
	}
	if count != nil && count() != before {
		t.Errorf("%s %s: a request without a credential was captured (%d turns kept, %d before)", api.Name, s, count(), before)
	}
	for _, who := range []string{"", key} {
		seen := p.Send(t, d, Call{API: api, Key: who, Conv: conv, Shape: s, Body: next})
		if seen.Restored() || string(seen.Received) != next || len(seen.Repairs) > 0 || seen.Headers[HeaderRepairs] != "" {
			t.Errorf("%s %s: credential %q got the anonymous turn: %+v", api.Name, s, who, seen)
		}
	}
	p.Send(t, d, Call{API: api, Key: key, Conv: conv, Shape: s, Body: api.First(conv)})
	seen := p.Send(t, d, Call{API: api, Conv: conv, Shape: s, Body: next})
	if seen.Restored() || string(seen.Received) != next || len(seen.Repairs) > 0 || seen.Headers[HeaderRepairs] != "" {
		t.Errorf("%s %s: a request without a credential got a tenant's turn: %+v", api.Name, s, seen)
	}
	if own := p.Send(t, d, Call{API: api, Key: key, Conv: conv, Shape: s, Body: api.Next(conv, Bare(api, api.Echo(Reasoning{Tenant: key, Conv: conv}, s)), s)}); !own.Restored() {
		t.Errorf("%s %s: the tenant's own turn was not restored: %+v", api.Name, s, own)
	}
}

// Concurrent runs n conversations of one agent (one credential, the same
// system prompt and tools, each its own user prompt) at once through d:
// each makes its first request, and once all have, sends its next with
// the model's turn bare. The turns show the same (for Gemini, the same
// calls without ids); each conversation must get its own reasoning back,
// byte for byte, and none of another's.
func Concurrent(t *testing.T, p *Provider, d Deployment, api *API, n int) {
	t.Helper()
	key, _ := Keys(api)
	convs := make([]string, n)
	for i := range convs {
		convs[i] = "agent conversation " + strconv.Itoa(i)
	}
	seen := make([]Seen, n)
	var firsts, all sync.WaitGroup
	firsts.Add(n)
	all.Add(n)
	for i, conv := range convs {
		go func() {
			defer all.Done()
			r := Reasoning{Tenant: key, Conv: conv}
			first := p.Send(t, d, Call{API: api, Key: key, Conv: conv, Body: api.First(conv)})
			firsts.Done()
			if first.Status != 200 {
				t.Errorf("%s %d: %+v", api.Name, i, first)
				return
			}
			firsts.Wait() // every conversation's turn is captured
			seen[i] = p.Send(t, d, Call{API: api, Key: key, Conv: conv, Body: api.Next(conv, Bare(api, api.Echo(r, Tool)), Tool)})
		}()
	}
	all.Wait()
	for i, s := range seen {
		if !s.Restored() {
			t.Errorf("%s: conversation %d was not restored: %+v", api.Name, i, s)
		}
		own := Reasoning{Tenant: key, Conv: convs[i]}
		want := Captured(api, own, Tool)
		for _, secret := range api.Secrets(own) {
			if restores(want, api.ClientOwned, secret) && !bytes.Contains(s.Received, []byte(secret)) {
				t.Errorf("%s: conversation %d did not get its own %.24q...", api.Name, i, secret)
			}
		}
		for j := range convs {
			if j != i {
				leaks(t, api, "conversation "+strconv.Itoa(i), []Seen{s}, Reasoning{Tenant: key, Conv: convs[j]})
			}
		}
	}
}
