package main

import (
	"os"
	"runtime"
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

// The inputs for which the commands ask for huge pages: a stream from
// hugeStreamMin bytes (prepareHeap), for the first hugeMax bytes of heap
// at most, and a whole body from hugeBodyMin bytes (its buffer, in
// source.all).
const (
	hugeStreamMin = 8 << 20
	hugeBodyMin   = 4 << 20
	hugeMax       = 64 << 20
)

// prepareHeap readies the heap for decoding a stream of size bytes (0 when
// not known), where the system backs memory with transparent huge pages
// when asked (Linux, THP in "madvise" or "always" mode): decode, encode and
// convert call it, after relaxGC, before they decode a stream.
//
// What a stream decode keeps is written once into memory the process has
// never touched (the turn's texts grow in the decoder's arena), and the
// first write to each 4 KB page costs a page fault: 1,300 of them for the
// 5 MB a 26 MB Anthropic tool loop keeps, a fifth of the process's CPU on
// a machine where a fault costs 10 µs or more. So the command allocates
// min(size, hugeMax) bytes (address space only: nothing is written to
// them), marks them MADV_HUGEPAGE, and lets a collection free them before
// the decode: the heap keeps the range, and the runtime's page allocator,
// which fills the lowest free range first, hands it to the decoder's
// arena, whose first write to each 2 MB then faults in a huge page at
// once. It costs one collection of a heap that holds next to nothing
// (with collection off while the range is allocated, so that it is the
// only one), and the range is zeroed again as the arena takes it: about
// what the faults of 1.5 MB of kept text cost, which an Anthropic stream
// of 8 MB keeps (hugeStreamMin; measured alternated, the two cost the
// same there, and from 12 MB the huge pages win). A stream from a pipe
// (size 0) is not sized. GODEBUG=disablethp=1, the runtime's own switch
// against huge pages, turns it off; so does a system whose huge pages are
// off, where the advice does nothing.
func prepareHeap(size int64) {
	if size < hugeStreamMin || !hugePagesAvailable() {
		return
	}
	old := debug.SetGCPercent(-1)
	hugePages(make([]byte, min(size, hugeMax)))
	runtime.GC()
	debug.SetGCPercent(old)
}
