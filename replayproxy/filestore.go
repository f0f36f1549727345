package replayproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"crypto/rand"
	"github.com/reasonreplay/replay/replayhttp"
)

// FileStore is a [replayhttp.Store] that survives a restart of one proxy:
// the turns are served from a bounded [replayhttp.MemoryStore] and each
// Put is appended to a file (one JSON record a line: the keys, the turn
// document and when it expires). Opening the file again loads the
// records that have not expired, the newest within the bounds, and
// rewrites the file with only those; the file is rewritten the same way
// whenever it holds twice the bounds. Writes are not synced to the disk
// one by one: a crash of the machine may lose the last turns, a restart
// of the proxy loses none.
type FileStore struct {
	mem    *replayhttp.MemoryStore
	path   string
	secret []byte
	o      StoreOptions

	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	lines int
	size  int
	now   func() time.Time
}

// record is one line of a FileStore's file.
type record struct {
	Expires      int64           `json:"expires"` // Unix milliseconds
	Tenant       string          `json:"tenant"`
	Conversation string          `json:"conversation"`
	Turn         json.RawMessage `json:"turn"`
}

// OpenFileStore opens (or creates) the store kept in the file at path.
func OpenFileStore(path string, o StoreOptions) (*FileStore, error) {
	o = o.withDefaults()
	s := &FileStore{path: path, o: o, now: time.Now,
		mem: &replayhttp.MemoryStore{MaxTurns: o.MaxTurns, MaxBytes: o.MaxBytes, TTL: o.TTL}}
	var err error
	if s.secret, err = loadSecret(path); err != nil {
		return nil, err
	}
	recs, err := s.compact()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		_ = s.mem.Put(context.Background(), replayhttp.Key{Tenant: r.Tenant, Conversation: r.Conversation}, r.Turn)
	}
	return s, nil
}

// compact reads the file's live records, keeps the newest within the
// bounds, rewrites the file with them and opens it for appending. It is
// called with s.mu held (or before s is shared).
func (s *FileStore) compact() ([]record, error) {
	if s.f != nil {
		if err := s.w.Flush(); err != nil {
			return nil, err
		}
		s.f.Close()
		s.f = nil
	}
	recs, err := readRecords(s.path, s.now().UnixMilli())
	if err != nil {
		return nil, err
	}
	size, first := 0, len(recs)
	for first > 0 && len(recs)-first < s.o.MaxTurns && size+len(recs[first-1].Turn) <= s.o.MaxBytes {
		first--
		size += len(recs[first].Turn)
	}
	recs = recs[first:]
	tmp := s.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	s.size, s.lines = 0, 0
	for _, r := range recs {
		line, _ := json.Marshal(r)
		w.Write(line)
		w.WriteByte('\n')
		s.size += len(line) + 1
		s.lines++
	}
	if err := errors.Join(w.Flush(), f.Sync(), f.Close()); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return nil, err
	}
	if s.f, err = os.OpenFile(s.path, os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
		return nil, err
	}
	s.w = bufio.NewWriter(s.f)
	return recs, nil
}

// readRecords reads the records of the file that expire after now; a line
// that does not parse (the end of a write cut by a crash) is skipped.
func readRecords(path string, now int64) ([]record, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []record
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var rec record
			if json.Unmarshal(line, &rec) == nil && rec.Expires > now && len(rec.Turn) > 0 {
				recs = append(recs, rec)
			}
		}
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("replayproxy: reading %s: %w", path, err)
		}
	}
}

// Put keeps doc under key in memory and appends it to the file.
func (s *FileStore) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	if len(doc) == 0 {
		return nil
	}
	if err := s.mem.Put(ctx, key, doc); err != nil {
		return err
	}
	line, err := json.Marshal(record{Expires: s.now().Add(s.o.TTL).UnixMilli(), Tenant: key.Tenant, Conversation: key.Conversation, Turn: doc})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return os.ErrClosed
	}
	s.w.Write(line)
	s.w.WriteByte('\n')
	if err := s.w.Flush(); err != nil {
		return err
	}
	s.size += len(line) + 1
	s.lines++
	if s.lines > 2*s.o.MaxTurns || s.size > 2*s.o.MaxBytes {
		_, err = s.compact()
	}
	return err
}

// Get returns the documents kept under key.
func (s *FileStore) Get(ctx context.Context, key replayhttp.Key) ([][]byte, error) {
	return s.mem.Get(ctx, key)
}

// Secret returns the secret that keys the tenant digests of the turns kept
// in the file: generated at random when the store was first opened and
// kept beside the file (PATH.secret, mode 0600), so that a restarted proxy
// finds its tenants' turns again.
func (s *FileStore) Secret() []byte { return s.secret }

// loadSecret reads the secret kept beside path, or makes one.
func loadSecret(path string) ([]byte, error) {
	p := path + ".secret"
	if b, err := os.ReadFile(p); err == nil && len(b) >= 32 {
		return b, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) { // made by another process just now
			if b, err := os.ReadFile(p); err == nil && len(b) >= 32 {
				return b, nil
			}
		}
		return nil, fmt.Errorf("replayproxy: keeping the store's secret: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return b, f.Close()
}

// Len returns the number of turns kept.
func (s *FileStore) Len() int { return s.mem.Len() }

// Close flushes and closes the file.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := errors.Join(s.w.Flush(), s.f.Close())
	s.f = nil
	return err
}
