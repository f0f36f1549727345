// Package turndoc gives the command line the replay package's writer of
// the turn document in pieces, which the package does not export: a
// document written as it is made never has to be held whole.
package turndoc

// Write is set by package replay. It appends the document of turn (a
// *replay.Turn) to dst and returns the extended slice, as Turn.AppendJSON
// does, except that between two blocks, once dst holds some tens of
// kilobytes, it calls flush with what it has appended so far and goes on
// appending to the slice flush returns (typically the same slice emptied).
// The document is the concatenation of every slice given to flush and of
// the slice returned.
var Write func(turn any, dst []byte, flush func([]byte) []byte) []byte
