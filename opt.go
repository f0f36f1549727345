package replay

import "fmt"

// Presence says whether an optional JSON member was absent, null, or present.
// The three are different replay facts: an absent signature, a null signature
// and an empty signature must each be written back as they came.
type Presence uint8

const (
	// Absent means the member was not in the object. It is the zero value.
	Absent Presence = iota
	// Null means the member was present with the JSON value null.
	Null
	// Present means the member was present with a value (which may be empty).
	Present
)

// String returns "absent", "null" or "present".
func (p Presence) String() string {
	switch p {
	case Absent:
		return "absent"
	case Null:
		return "null"
	case Present:
		return "present"
	}
	return "<invalid Presence>"
}

// Opt is an optional value whose presence is explicit. The zero value is
// absent. Use [Some] and [NullOf] to build one.
type Opt[T any] struct {
	v T
	p Presence
}

// Some returns a present Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{v: v, p: Present} }

// NullOf returns an Opt that records an explicit JSON null.
func NullOf[T any]() Opt[T] { return Opt[T]{p: Null} }

// Get returns the value and whether it is present. A null or absent Opt
// returns the zero value and false.
func (o Opt[T]) Get() (T, bool) { return o.v, o.p == Present }

// Value returns the value, or the zero value when it is not present.
func (o Opt[T]) Value() T { return o.v }

// Presence reports whether the value is absent, null or present.
func (o Opt[T]) Presence() Presence { return o.p }

// IsPresent reports whether a value (possibly empty) is present.
func (o Opt[T]) IsPresent() bool { return o.p == Present }

// String formats the value as fmt's %v does when it is present, and as
// "<null>" or "<absent>" otherwise, so that an Opt prints as what it holds.
func (o Opt[T]) String() string {
	switch o.p {
	case Present:
		return fmt.Sprint(o.v)
	case Null:
		return "<null>"
	}
	return "<absent>"
}

// GoString formats the Opt as the Go expression that builds it:
// replay.Some[T](v), replay.NullOf[T]() or replay.Opt[T]{}.
func (o Opt[T]) GoString() string {
	typ := fmt.Sprintf("%T", o.v)
	switch o.p {
	case Present:
		return fmt.Sprintf("replay.Some[%s](%#v)", typ, o.v)
	case Null:
		return "replay.NullOf[" + typ + "]()"
	}
	return "replay.Opt[" + typ + "]{}"
}
