package codecs

import (
	"fmt"

	"github.com/reasonreplay/replay"
)

// Malformed returns the error a codec reports for input of the wrong
// shape: a *[replay.Error] for api at pointer (a JSON Pointer; "" for the
// whole input) that wraps [replay.ErrMalformed] with a message saying what
// was expected. event is the stream event's number, -1 outside a stream.
func Malformed(api string, event int, pointer, format string, args ...any) error {
	return &replay.Error{API: api, Event: event, Pointer: pointer,
		Err: fmt.Errorf("%w: %s", replay.ErrMalformed, fmt.Sprintf(format, args...))}
}
