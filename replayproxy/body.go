package replayproxy

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/reasonreplay/replay/internal/own"
)

// budget is the memory the request bodies in flight may hold, all
// requests together: admission control. Each request reserves what it
// holds as it reads it (bodyWeight times its body: the body the proxy
// holds once, and the working copies the middleware makes while it
// reads, repairs and audits it), and releases it once the upstream has
// the request. A body of known size is admitted whole or not at all; a
// chunked one reserves as it arrives. A slow client is cut by the read
// timeout.
type budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
	g     gaugeInt
}

// take reserves n bytes, or reports false when they do not fit.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	b.g.Add(n)
	return true
}

func (b *budget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.g.Add(-n)
}

// bodyWeight is how many times its body a request counts against the
// budget: measured, a 30 MiB body raises the process's resident memory by
// about 3.5 times its size while it is read, repaired, audited and sent.
const bodyWeight = 4

// errOverBudget: the body did not fit in what the bodies in flight may
// hold.
var errOverBudget = errors.New("over budget")

// errTooLarge: the body, decoded, is larger than the limit.
var errTooLarge = errors.New("too large")

// errCoding: a content coding the proxy does not read, or bytes that do
// not decode.
type errCoding struct{ msg string }

func (e *errCoding) Error() string { return e.msg }

// heldBody is a request body the proxy holds whole: the middleware takes
// its bytes without a copy, and keeps them without a copy (own.Body): the
// proxy never writes a body's bytes again once read.
type heldBody struct {
	*bytes.Reader
	b []byte
}

func (h *heldBody) Close() error               { return nil }
func (h *heldBody) HeldBytes(own.Token) []byte { return h.b }

// chunk is how much of a body is read (and reserved) at a time.
const chunk = 64 << 10

// readBody reads r's body, decoding its Content-Encoding (gzip, deflate,
// br, zstd; several, in order), up to max decoded bytes, reserving twice
// each byte kept from bud. It returns the bytes (held once: read in
// chunks, then joined into one slice of the final size) and what it
// reserved.
func readBody(r *http.Request, max int64, bud *budget) (body []byte, reserved int64, err error) {
	var src io.Reader = r.Body
	codings := splitCodings(r.Header.Values("Content-Encoding"))
	// The compressed bytes are bounded too: a client may not send more
	// than max bytes of anything.
	src = io.LimitReader(src, max+1)
	limited := src.(*io.LimitedReader)
	for i := len(codings) - 1; i >= 0; i-- {
		dec, err := decoder(codings[i], src)
		if err != nil {
			return nil, 0, err
		}
		defer dec.Close()
		src = dec
	}
	take := func(n int64) error {
		if !bud.take(bodyWeight * n) {
			return errOverBudget
		}
		reserved += bodyWeight * n
		return nil
	}
	// A body of known size that is not encoded is admitted whole or not
	// at all (so that requests arriving together do not each hold part
	// of the budget and all fail), and read into an exact buffer.
	if len(codings) == 0 && r.ContentLength >= 0 && r.ContentLength <= max {
		n := r.ContentLength
		if err := take(n); err != nil {
			return nil, reserved, err
		}
		buf := make([]byte, 0, n)
		for int64(len(buf)) < n {
			step := min(n-int64(len(buf)), chunk)
			k, err := io.ReadFull(src, buf[len(buf):len(buf)+int(step)])
			buf = buf[:len(buf)+k]
			if err != nil {
				return nil, reserved, err
			}
		}
		return buf, reserved, nil
	}
	var chunks [][]byte
	var total int64
	for {
		if err := take(chunk); err != nil {
			return nil, reserved, err
		}
		c := make([]byte, chunk)
		k, rerr := io.ReadFull(src, c)
		total += int64(k)
		if k < chunk {
			bud.give(bodyWeight * int64(chunk-k))
			reserved -= bodyWeight * int64(chunk-k)
		}
		chunks = append(chunks, c[:k])
		if total > max || limited.N <= 0 {
			return nil, reserved, errTooLarge
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			var ce *errCoding
			if errors.As(rerr, &ce) {
				return nil, reserved, rerr
			}
			if len(codings) > 0 && !isNetErr(rerr) {
				return nil, reserved, &errCoding{fmt.Sprintf("the body does not decode as %s: %v", strings.Join(codings, ", "), rerr)}
			}
			return nil, reserved, rerr
		}
	}
	if len(chunks) == 1 {
		return chunks[0], reserved, nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, reserved, nil
}

// isNetErr reports whether err came from the client's connection (a
// timeout, a reset) rather than from decoding.
func isNetErr(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) || errors.Is(err, io.ErrClosedPipe) || strings.Contains(err.Error(), "connection")
}

// splitCodings lists the content codings of a request, in the order they
// were applied; "identity" is left out.
func splitCodings(values []string) []string {
	var out []string
	for _, v := range values {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

// decoder reads the decoded bytes of r, coded with coding.
func decoder(coding string, r io.Reader) (io.ReadCloser, error) {
	switch coding {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, &errCoding{"the body does not decode as gzip: " + err.Error()}
		}
		return zr, nil
	case "deflate":
		// HTTP's deflate is the zlib format; some clients send raw
		// DEFLATE under that name.
		br := bufio.NewReader(r)
		if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, &errCoding{"the body does not decode as deflate: " + err.Error()}
			}
			return zr, nil
		}
		return flate.NewReader(br), nil
	case "br":
		return io.NopCloser(brotli.NewReader(r)), nil
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(8<<20))
		if err != nil {
			return nil, &errCoding{"the body does not decode as zstd: " + err.Error()}
		}
		return zr.IOReadCloser(), nil
	}
	return nil, &errCoding{fmt.Sprintf("the content coding %q is not one the proxy reads (gzip, deflate, br, zstd)", coding)}
}

// responseCodings are the content codings the middleware decodes for its
// capture while the client reads the response as it came: the only ones
// the proxy lets the client ask the upstream for.
var responseCodings = map[string]bool{"gzip": true, "deflate": true}

// acceptEncoding keeps, of a client's Accept-Encoding, the codings the
// middleware reads; "" when none is left (the upstream then sends the
// identity).
func acceptEncoding(h string) string {
	var keep []string
	for _, part := range strings.Split(h, ",") {
		name, _, _ := strings.Cut(part, ";")
		if responseCodings[strings.ToLower(strings.TrimSpace(name))] {
			keep = append(keep, strings.TrimSpace(part))
		}
	}
	return strings.Join(keep, ", ")
}

// decodedHead decodes the first bytes of an error response for Classify;
// raw itself when the response is not encoded, nil when it cannot be
// decoded.
func decodedHead(h http.Header, raw []byte) []byte {
	codings := splitCodings(h.Values("Content-Encoding"))
	if len(codings) == 0 {
		return raw
	}
	var src io.Reader = bytes.NewReader(raw)
	for i := len(codings) - 1; i >= 0; i-- {
		dec, err := decoder(codings[i], src)
		if err != nil {
			return nil
		}
		defer dec.Close()
		src = dec
	}
	out, _ := io.ReadAll(io.LimitReader(src, 1<<20))
	return out
}
