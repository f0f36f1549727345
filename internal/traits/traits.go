// Package traits is the table of the reasoning formats' replay facts:
// package codecs fills it (codecs.RegisterFormat) and the root package
// reads it. It sits below both, so that the root need not import the
// package codec authors use, and knows its types only as parameters.
package traits

import (
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
)

// Traits are one format's facts in the form the root package reads them:
// I, P and T are its ReasoningItem, Provenance and Target, and why is a
// codecs.Refusal.
type Traits[I, P, T any] struct {
	SignsText           bool
	RejectsUnsignedText bool
	UnsignedTextError   string
	Family              string
	AccountBound        bool
	PairsWithFollower   bool
	Refuse              func(why uint8, it I, latest bool) string
	Domain              func(provider string) string
	Unread              func(p P, t T) string
}

// Entry is what one format registered: the traits the root reads (a
// Traits of the root's types) and the ones its codec declared (a
// codecs.FormatTraits), for codecs.TraitsOf.
type Entry struct {
	Root, Declared any
}

var (
	mu  sync.Mutex
	all map[string]Entry // every registration, under mu
	// snapshot is what Lookup reads without a lock: a copy of all, made at
	// the first lookup after a registration (registrations come in a
	// burst at init, so the table is copied once, not once per format).
	snapshot atomic.Pointer[map[string]Entry]
)

// Register records format f's entry. A format is registered once: a second
// registration panics, as a duplicate init-time registration does
// elsewhere in this module.
func Register(f string, e Entry) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := all[f]; dup {
		panic(fmt.Sprintf("replay: format %q registered twice", f))
	}
	if all == nil {
		all = map[string]Entry{}
	}
	all[f] = e
	snapshot.Store(nil)
}

// Lookup returns format f's entry.
func Lookup(f string) (Entry, bool) {
	m := snapshot.Load()
	if m == nil {
		mu.Lock()
		if m = snapshot.Load(); m == nil {
			c := maps.Clone(all)
			m = &c
			snapshot.Store(m)
		}
		mu.Unlock()
	}
	e, ok := (*m)[f]
	return e, ok
}
