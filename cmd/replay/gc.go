package main

import (
	"os"
	"runtime/debug"
)

// streamGCPercent is the collector's GOGC while decode, encode and
// convert decode a stream (see relaxGC).
const streamGCPercent = 400

// relaxGC sets the collector's GOGC to streamGCPercent for the rest of
// the process, unless GOGC is set in the environment (the user's choice
// wins). Decode, encode and convert call it before they decode a stream:
// they read one input, keep one turn, write it and exit.
//
// A stream decoder allocates what it keeps (its turn's texts grow in its
// arena; the decoders allocate under one object per event, and almost all
// they allocate is the turn), so a collection while a stream is decoded
// marks the turn and frees next to nothing. With the default GOGC of 100
// the first collection comes at a 4 MB heap and the next at twice the
// live one: decoding a 26 MB Anthropic tool loop into a 5 MB turn paid
// two collections, about a tenth of the process's CPU, and the pages the
// collector touches. At 400 the first comes at 16 MB, and the heap stays
// within five times the live one, so a decoder that did make garbage
// still has it collected. Whole bodies are not concerned: reading one
// makes garbage, and on a machine where a fresh page costs more than
// collecting, the default pacing is the cheaper.
func relaxGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(streamGCPercent)
}
