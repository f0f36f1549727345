// Package traits is the table of the reasoning formats' replay facts:
// package codecs fills it (codecs.RegisterFormat) and the root package
// reads it. It sits below both, so that the root need not import the
// package codec authors use, and knows its types only as parameters.
package traits

import (
	"fmt"
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
	table atomic.Pointer[map[string]Entry]
	mu    sync.Mutex
)

// Register records format f's entry. A format is registered once: a second
// registration panics, as a duplicate init-time registration does
// elsewhere in this module.
func Register(f string, e Entry) {
	mu.Lock()
	defer mu.Unlock()
	old := table.Load()
	next := map[string]Entry{}
	if old != nil {
		if _, dup := (*old)[f]; dup {
			panic(fmt.Sprintf("replay: format %q registered twice", f))
		}
		for k, v := range *old {
			next[k] = v
		}
	}
	next[f] = e
	table.Store(&next)
}

// Lookup returns format f's entry.
func Lookup(f string) (Entry, bool) {
	m := table.Load()
	if m == nil {
		return Entry{}, false
	}
	e, ok := (*m)[f]
	return e, ok
}
