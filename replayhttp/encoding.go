package replayhttp

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// A response the caller asked compressed (it set Accept-Encoding itself,
// so net/http left the body as the server sent it) reaches the caller
// byte for byte as sent; the middleware decodes its own copy of what the
// caller reads. These are the codings it decodes.
const (
	codingGzip    = "gzip"
	codingDeflate = "deflate"
)

// contentCoding returns the content coding of a response the middleware
// decodes for its own reading ("gzip" or "deflate"), "" for an identity
// body, and ok false for a coding it cannot read.
func contentCoding(h http.Header) (coding string, ok bool) {
	switch c := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding"))); c {
	case "", "identity":
		return "", true
	case codingGzip, "x-gzip":
		return codingGzip, true
	case codingDeflate:
		return codingDeflate, true
	default:
		return c, false
	}
}

// decompressor returns a reader of the decoded bytes of r. A "deflate"
// body is read as the zlib format HTTP names, or as raw DEFLATE, which
// some servers send under that name.
func decompressor(coding string, r io.Reader) (io.ReadCloser, error) {
	if coding == codingGzip {
		return gzip.NewReader(r)
	}
	br := bufio.NewReader(r)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// decodedHead returns the decoded bytes of a compressed body's first
// bytes, up to max, for reading an error; raw itself for an identity
// body, and nil when it cannot be decoded.
func decodedHead(h http.Header, raw []byte, max int) []byte {
	coding, ok := contentCoding(h)
	if !ok {
		return nil
	}
	if coding == "" {
		return raw
	}
	zr, err := decompressor(coding, bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	defer zr.Close()
	out, _ := io.ReadAll(io.LimitReader(zr, int64(max)))
	return out
}

// inflater decodes, in a goroutine of its own, the compressed bytes a
// teeBody feeds it, and hands the decoded bytes to sink in order. Only
// its goroutine calls sink, until close has returned.
type inflater struct {
	pw   *io.PipeWriter
	done chan struct{}
	err  error // the coding's error; read after done
}

func newInflater(coding string, sink func([]byte)) *inflater {
	pr, pw := io.Pipe()
	f := &inflater{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		zr, err := decompressor(coding, pr)
		if err == nil {
			buf := make([]byte, 32<<10)
			for {
				n, rerr := zr.Read(buf)
				if n > 0 {
					sink(buf[:n])
				}
				if rerr == io.EOF {
					break
				}
				if rerr != nil {
					err = rerr
					break
				}
			}
			zr.Close()
		}
		if err != nil {
			f.err = fmt.Errorf("replayhttp: decoding the %s response: %w", coding, err)
		}
		pr.CloseWithError(io.ErrClosedPipe) // the writer never blocks again
	}()
	return f
}

// write feeds compressed bytes; it returns once the decoder took them.
func (f *inflater) write(p []byte) { _, _ = f.pw.Write(p) }

// close ends the input (early is why it ended before its end, or nil)
// and waits for the decoder to hand over what is left.
func (f *inflater) close(early error) error {
	if early != nil {
		f.pw.CloseWithError(early)
	} else {
		f.pw.Close()
	}
	<-f.done
	return f.err
}
