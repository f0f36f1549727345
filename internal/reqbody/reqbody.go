// Package reqbody hands a request body that was read whole to the
// middleware without a copy: the proxy reads a body (to bound it), and the
// middleware, which reads every body it recognises whole, takes the same
// bytes instead of reading them again into a buffer of its own.
package reqbody

import "bytes"

// Body is a request body read whole: an io.ReadCloser over b, whose bytes
// the middleware may take while none of them has been read. Whoever makes
// one must not change b afterwards.
type Body struct {
	b []byte
	r bytes.Reader
}

// New returns a Body over b.
func New(b []byte) *Body {
	x := &Body{b: b}
	x.r.Reset(b)
	return x
}

// Read reads the body.
func (x *Body) Read(p []byte) (int, error) { return x.r.Read(p) }

// Close closes the body (nothing to release).
func (x *Body) Close() error { return nil }

// Bytes returns the whole body, and true, while none of it has been read.
func (x *Body) Bytes() ([]byte, bool) {
	if x.r.Len() != len(x.b) {
		return nil, false
	}
	return x.b, true
}
