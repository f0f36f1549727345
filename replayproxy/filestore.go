package replayproxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reasonreplay/replay/internal/entries"
	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/skips"
	"github.com/reasonreplay/replay/replayhttp"
)

// FileStore is a [replayhttp.Store] that survives a restart (or a crash)
// of one proxy: the turns are served from memory, bounded as a
// [replayhttp.MemoryStore] is, and each Put appends a record to a file.
//
// The file (mode 0600) starts with the line "replay-store 1", then one
// record per Put: a header line
//
//	R <expires, Unix ms> <tenant bytes> <conversation bytes> <document bytes> <CRC-32C, 8 hex>
//
// followed by the tenant, the conversation and the document, byte for
// byte as they were put (never decoded or encoded again), and a line
// break. The CRC covers the header's fields and the three. A record is
// written with one write, and Put returns once it is on the disk (an
// fdatasync after the record; Puts at the same time share one): a crash
// of the proxy or of the machine loses no turn whose Put returned. A
// record cut short by a crash, or damaged, fails its length or CRC check
// and is skipped when the file is read back (counted, see
// [FileStore.SkippedEntries]); reading goes on at the next record.
//
// Opening the file reads the records that have not expired, as untrusted
// input (a document over MaxEntryBytes, or not valid JSON within the depth
// a request body may have, is skipped), keeps the newest within the
// bounds, and rewrites the file with only those; the file is rewritten the
// same way whenever it holds twice the bounds. A rewrite keeps every
// record the store serves: a document too large to keep is refused at Put,
// with the reason, rather than pushing the others out. The rewrite goes to
// a new file in the same directory (created exclusively, mode 0600),
// synced, then renamed over the old one: a crash leaves the old file or
// the new one, whole.
//
// One process holds the file at a time: an advisory lock (flock) on
// PATH.lock, held until Close, makes a second proxy on the same file
// refuse to start with an error naming the holder, rather than lose
// turns. The file, its lock and the secret beside it are never opened
// through a symbolic link.
type FileStore struct {
	path   string
	o      StoreOptions
	secret []byte
	lock   *os.File
	skips  skips.Skips

	mu      sync.Mutex
	t       *entries.Table[replayhttp.Key]
	f       *os.File // nil once closed
	gen     int      // the file's generation: each rewrite makes a new one
	size    int64    // bytes in the file
	records int      // records in the file
	now     func() time.Time

	syncMu    sync.Mutex
	syncedGen int
	synced    int64 // the file (of syncedGen) is on the disk up to here
}

// fileMagic opens a store file.
const fileMagic = "replay-store 1\n"

// maxKeyBytes bounds the tenant and the conversation of a record read
// back: the middleware's are hex digests.
const maxKeyBytes = 1024

// castagnoli is the CRC-32C table of the records.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// OpenFileStore opens (or creates) the store kept in the file at path. It
// fails when another process holds the file, when path (or its lock or
// secret beside it) is a symbolic link, and when the secret beside it is
// readable by others.
func OpenFileStore(path string, o StoreOptions) (*FileStore, error) {
	o = o.withDefaults()
	s := &FileStore{path: path, o: o, now: time.Now,
		t: entries.New[replayhttp.Key](entries.Bounds{Entries: o.MaxTurns, Bytes: o.MaxBytes, PerKey: o.MaxPerKey, TTL: o.TTL})}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, s.errorf("is a symbolic link: give the path of the file itself")
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	s.lock = lock
	ok := false
	defer func() {
		if !ok {
			lock.Close()
		}
	}()
	s.secret = o.Secret
	if len(s.secret) == 0 {
		if s.secret, err = loadSecret(path + ".secret"); err != nil {
			return nil, err
		}
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	if err := s.rewrite(); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

func (s *FileStore) errorf(format string, args ...any) error {
	return fmt.Errorf("replayproxy: the store file %s "+format, append([]any{s.path}, args...)...)
}

// load reads the file's records into the table.
func (s *FileStore) load() error {
	f, err := openNoFollow(s.path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return s.errorf("cannot be read: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return s.errorf("is not a regular file")
	}
	r := &recordReader{f: f, size: fi.Size(), maxDoc: s.o.MaxEntryBytes}
	if fi.Size() > 0 {
		head := make([]byte, len(fileMagic))
		n, _ := f.ReadAt(head, 0)
		switch {
		case string(head[:n]) == fileMagic:
		case n > 0 && head[0] == '{':
			return s.setAside(f)
		default:
			return s.errorf("is not a replay store file (it does not start with %q); move it away or name another", strings.TrimSpace(fileMagic))
		}
		r.off = int64(len(fileMagic))
	}
	now := s.now()
	for {
		rec, skipped, err := r.next()
		if err != nil {
			return s.errorf("cannot be read: %w", err)
		}
		if skipped != "" {
			s.skips.Skip(s.o.Logger, "file", skipped, rec.key)
			continue
		}
		if rec.doc == nil {
			return nil
		}
		exp := time.UnixMilli(rec.expires)
		if !exp.After(now) {
			continue
		}
		if limit := now.Add(s.o.TTL); exp.After(limit) {
			exp = limit // a TTL shortened since
		}
		if !s.t.Put(rec.key, rec.doc, now, exp) {
			s.skips.Skip(s.o.Logger, "file", "a document larger than the store keeps", rec.key)
		}
	}
}

// setAside moves away a file of JSON lines that earlier builds wrote (their
// records went through encoding/json, which changed the documents' bytes,
// and were keyed otherwise): kept as PATH.old, never read as records; the
// store starts empty.
func (s *FileStore) setAside(f *os.File) error {
	line := make([]byte, 4096)
	n, _ := f.ReadAt(line, 0)
	if i := bytes.IndexByte(line[:n], '\n'); i >= 0 {
		n = i
	}
	if !jsonw.Valid(string(line[:n])) || !strings.Contains(string(line[:n]), `"expires":`) {
		return s.errorf("is not a replay store file (it does not start with %q); move it away or name another", strings.TrimSpace(fileMagic))
	}
	old := s.path + ".old"
	if _, err := os.Lstat(old); err == nil {
		return s.errorf("was written by an earlier build, and %s is taken: move one of them away", old)
	}
	if err := os.Rename(s.path, old); err != nil {
		return s.errorf("was written by an earlier build and cannot be moved to %s: %w", old, err)
	}
	syncDir(filepath.Dir(s.path))
	s.o.Logger.Warn("store file written by an earlier build (JSON lines, whose documents were re-encoded): kept aside, the store starts empty",
		"file", s.path, "kept_as", old)
	return nil
}

// record is one record read back.
type record struct {
	key     replayhttp.Key
	expires int64
	doc     []byte
}

// recordReader reads a store file's records from off.
type recordReader struct {
	f      io.ReaderAt
	off    int64
	size   int64
	maxDoc int
}

// next returns the next record, or why the record at the reader's place
// was skipped (reading goes on after it, or at the next place a record
// may start), or a zero record at the end of the file.
func (r *recordReader) next() (rec record, skipped string, err error) {
	if r.off >= r.size {
		return record{}, "", nil
	}
	start := r.off
	// The header line: at most "R" and five numbers.
	buf := make([]byte, min(96, r.size-start))
	if _, err := r.f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return record{}, "", err
	}
	nl := strings.IndexByte(string(buf), '\n')
	fields := strings.Fields(string(buf[:max(nl, 0)]))
	var n [5]int64
	ok := nl > 0 && len(fields) == 6 && fields[0] == "R" && len(fields[5]) == 8
	for i := 1; ok && i < 5; i++ {
		n[i-1], err = strconv.ParseInt(fields[i], 10, 64)
		ok = err == nil && n[i-1] >= 0
	}
	crc, cerr := strconv.ParseUint(fields5(fields), 16, 32)
	ok = ok && cerr == nil
	if !ok {
		return record{}, "a record header that does not read (a write cut short, or damage)", r.resync(start)
	}
	lt, lc, ld := n[1], n[2], n[3]
	body := start + int64(nl) + 1
	end := body + lt + lc + ld + 1
	switch {
	case lt > maxKeyBytes || lc > maxKeyBytes:
		return record{}, "a record whose key is longer than a key may be", r.resync(start)
	case ld > int64(r.maxDoc):
		// Skipped whole when its end is where it says (a valid record of a
		// larger bound), else read again from after its header.
		if end <= r.size && r.byteAt(end-1) == '\n' && r.startsRecord(end) {
			r.off = end
			return record{}, "a document larger than MaxEntryBytes", nil
		}
		return record{}, "a record header that does not read (a write cut short, or damage)", r.resync(start)
	case end > r.size:
		return record{}, "a record cut short (a write cut by a crash), or whose length was damaged", r.resync(start)
	}
	data := make([]byte, lt+lc+ld+1)
	if _, err := r.f.ReadAt(data, body); err != nil {
		return record{}, "", err
	}
	h := crc32.New(castagnoli)
	h.Write(buf[:strings.LastIndexByte(string(buf[:nl]), ' ')])
	h.Write(data[:len(data)-1])
	if data[len(data)-1] != '\n' || h.Sum32() != uint32(crc) {
		return record{}, "a record that fails its CRC (a write cut short, or damage)", r.resync(start)
	}
	rec = record{expires: n[0], key: replayhttp.Key{Tenant: string(data[:lt]), Conversation: string(data[lt : lt+lc])}, doc: data[lt+lc : lt+lc+ld]}
	r.off = end
	if !jsonw.ValidBytes(rec.doc) {
		return rec, "a document that is not valid JSON within the depth a request body may have", nil
	}
	return rec, "", nil
}

func fields5(f []string) string {
	if len(f) < 6 {
		return ""
	}
	return f[5]
}

func (r *recordReader) byteAt(off int64) byte {
	var b [1]byte
	if _, err := r.f.ReadAt(b[:], off); err != nil {
		return 0
	}
	return b[0]
}

// startsRecord reports whether a record (or the end of the file) starts
// at off.
func (r *recordReader) startsRecord(off int64) bool {
	if off >= r.size {
		return off == r.size
	}
	var b [2]byte
	_, err := r.f.ReadAt(b[:], off)
	return err == nil && b == [2]byte{'R', ' '}
}

// resync moves the reader to the next place after from where a record
// may start ("R "): next reads a record there only if its lengths, its end
// and its CRC agree, else comes back here from that place. A record
// appended after one cut short is found even without the line break the
// cut one lacks.
func (r *recordReader) resync(from int64) error {
	const chunk = 64 << 10
	buf := make([]byte, chunk+1)
	for off := from + 1; off < r.size; off += chunk {
		n, err := r.f.ReadAt(buf[:min(int64(len(buf)), r.size-off)], off)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := bytes.Index(buf[:n], []byte("R ")); i >= 0 {
			r.off = off + int64(i)
			return nil
		}
	}
	r.off = r.size
	return nil
}

// appendRecord appends the record of doc under key to dst.
func appendRecord(dst []byte, key replayhttp.Key, doc []byte, expires time.Time) []byte {
	start := len(dst)
	dst = append(dst, 'R', ' ')
	dst = strconv.AppendInt(dst, expires.UnixMilli(), 10)
	for _, n := range [...]int{len(key.Tenant), len(key.Conversation), len(doc)} {
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, int64(n), 10)
	}
	h := crc32.New(castagnoli)
	h.Write(dst[start:])
	h.Write([]byte(key.Tenant))
	h.Write([]byte(key.Conversation))
	h.Write(doc)
	dst = fmt.Appendf(dst, " %08x\n", h.Sum32())
	dst = append(dst, key.Tenant...)
	dst = append(dst, key.Conversation...)
	dst = append(dst, doc...)
	return append(dst, '\n')
}

// rewrite writes the table's entries to a new file beside the old one,
// syncs it, renames it over the old one and opens it for appending. It is
// called with s.mu held (or before s is shared).
func (s *FileStore) rewrite() error {
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".*.tmp") // O_EXCL, mode 0600
	if err != nil {
		return s.errorf("cannot be rewritten: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	buf := []byte(fileMagic)
	records := 0
	var werr error
	s.t.Each(s.now(), func(key replayhttp.Key, doc []byte, expires time.Time) {
		buf = appendRecord(buf, key, doc, expires)
		records++
		if len(buf) >= 1<<20 && werr == nil {
			_, werr = tmp.Write(buf)
			buf = buf[:0]
		}
	})
	var size int64
	if werr == nil {
		_, werr = tmp.Write(buf)
	}
	if werr == nil {
		size, werr = tmp.Seek(0, io.SeekCurrent)
	}
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return s.errorf("cannot be rewritten: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return s.errorf("cannot be rewritten: %w", err)
	}
	done = true
	syncDir(dir)
	if s.f != nil {
		s.f.Close()
	}
	f, err := openNoFollow(s.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		s.f = nil
		return s.errorf("cannot be opened: %w", err)
	}
	s.f, s.size, s.records = f, size, records
	s.gen++
	s.syncMu.Lock()
	s.syncedGen, s.synced = s.gen, size
	s.syncMu.Unlock()
	return nil
}

// Put keeps doc under key and appends its record to the file; it returns
// once the record is on the disk. A document larger than MaxEntryBytes, or
// than the store keeps, is refused with a [*replayhttp.EntryError] and
// takes nothing's place.
func (s *FileStore) Put(_ context.Context, key replayhttp.Key, doc []byte) error {
	if len(doc) == 0 {
		return nil
	}
	if len(doc) > s.o.MaxEntryBytes || len(doc) > s.t.Bounds().Bytes {
		return &replayhttp.EntryError{Key: key, Reason: fmt.Sprintf("a document of %d bytes is larger than the file store keeps (%d; --max-body and --store-max-bytes bound it)",
			len(doc), min(s.o.MaxEntryBytes, s.t.Bounds().Bytes))}
	}
	if len(key.Tenant) > maxKeyBytes || len(key.Conversation) > maxKeyBytes {
		return &replayhttp.EntryError{Key: key, Reason: "a key longer than the file store keeps"}
	}
	s.mu.Lock()
	if s.f == nil {
		s.mu.Unlock()
		return os.ErrClosed
	}
	now := s.now()
	s.t.Put(key, doc, now, now.Add(s.o.TTL))
	rec := appendRecord(nil, key, doc, now.Add(s.o.TTL))
	n, err := s.f.Write(rec)
	if err != nil {
		// Cut what was written, so that the next record follows a whole one.
		if n > 0 {
			_ = s.f.Truncate(s.size)
		}
		s.mu.Unlock()
		return s.errorf("cannot be written: %w", err)
	}
	s.size += int64(n)
	s.records++
	b := s.t.Bounds()
	if s.records > 2*b.Entries || s.size > 2*int64(b.Bytes) {
		err = s.rewrite()
		s.mu.Unlock()
		return err
	}
	gen, end := s.gen, s.size
	s.mu.Unlock()
	return s.syncTo(gen, end)
}

// syncTo returns once the file of generation gen is on the disk up to end:
// one fdatasync covers every record written before it started.
func (s *FileStore) syncTo(gen int, end int64) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if s.syncedGen != gen || s.synced >= end {
		return nil // synced, or rewritten (a rewrite is synced whole)
	}
	s.mu.Lock()
	f, cur, size := s.f, s.gen, s.size
	s.mu.Unlock()
	if f == nil || cur != gen {
		return nil
	}
	if err := fdatasync(f); err != nil {
		if errors.Is(err, os.ErrClosed) {
			return nil // Close synced it
		}
		return s.errorf("cannot be synced: %w", err)
	}
	s.synced = size
	return nil
}

// Get returns the documents kept under key: the store's own bytes, which
// it never changes and the caller must not (see [replayhttp.Store]).
func (s *FileStore) Get(_ context.Context, key replayhttp.Key) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Get(key, s.now()), nil
}

// SkippedEntries returns the number of records skipped when the file was
// read back (cut short, damaged, over MaxEntryBytes, not valid JSON).
func (s *FileStore) SkippedEntries() uint64 { return s.skips.Count() }

// Secret returns the secret that keys the tenant digests of the turns kept
// in the file: StoreOptions.Secret when given, else one generated at
// random (32 bytes) when the store was first opened and kept beside the
// file (PATH.secret, mode 0600, created exclusively and never through a
// symbolic link), so that a restarted proxy finds its tenants' turns
// again.
func (s *FileStore) Secret() []byte { return s.secret }

// loadSecret reads the secret kept at p, or makes one there.
func loadSecret(p string) ([]byte, error) {
	f, err := openNoFollow(p, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		f, err := openNoFollow(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("replayproxy: keeping the store's secret in %s: %w", p, err)
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			os.Remove(p)
			return nil, fmt.Errorf("replayproxy: keeping the store's secret in %s: %w", p, err)
		}
		if err := errors.Join(f.Sync(), f.Close()); err != nil {
			os.Remove(p)
			return nil, fmt.Errorf("replayproxy: keeping the store's secret in %s: %w", p, err)
		}
		syncDir(filepath.Dir(p))
		return b, nil
	}
	if err != nil {
		return nil, fmt.Errorf("replayproxy: reading the store's secret %s: %w", p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("replayproxy: the store's secret %s is not a regular file", p)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("replayproxy: the store's secret %s may be read by others (mode %04o): chmod 600 it", p, fi.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return nil, err
	}
	if len(b) < 32 {
		return nil, fmt.Errorf("replayproxy: the store's secret %s has %d bytes, want 32 or more", p, len(b))
	}
	return b, nil
}

// Len returns the number of turns kept.
func (s *FileStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Len(s.now())
}

// Close syncs and closes the file and releases its lock.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := errors.Join(s.f.Sync(), s.f.Close())
	s.f = nil
	return errors.Join(err, s.lock.Close())
}

// syncDir syncs a directory, so that a file created or renamed in it is
// found after a crash. Errors are ignored: some file systems refuse it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
