// Package turnfn holds functions of package replay that the middleware
// (package replayhttp) calls on the turns it reads back from a store, and
// that are not part of replay's API. Package replay sets them when it is
// initialised. They are typed any here, since this package cannot name
// replay's types; their users assert each one's type once.
package turnfn

// CarryStored returns Registry.Carry of one turn at a time, to one
// target under one policy, for a caller that never changes the turns it
// gives nor the turns it gets: what Carry would copy unchanged is shared
// with the turn given (the turn itself when nothing changes). The function
// it returns is for one goroutine. Its type is
//
//	func(r *replay.Registry, target replay.Target, policy replay.Policy) func(t *replay.Turn) (*replay.Turn, []replay.Notice)
var CarryStored any

// ReadTurnShared is replay.UnmarshalTurn of a document whose bytes never
// change, for a caller that keeps the document as long as the turn: the
// turn's strings that the document holds as they are (no escape in their
// literal) are views of it instead of copies; raw JSON values are copies
// still. Its type is
//
//	func(doc string) (*replay.Turn, error)
var ReadTurnShared any
