// Package redisstore is a [replayhttp.Store] kept in Redis, so that several
// proxy instances behind a load balancer (or several processes using the
// middleware) share the captured turns: a conversation may land on any
// instance. It lives in a module of its own so that the library does not
// depend on a Redis client. The proxy's replay-proxy command takes it as
// --store redis://...
//
// [Open] takes the URL forms operators run Redis in: one server
// (redis://, rediss:// for TLS), Sentinel (redis+sentinel://) and Cluster
// (redis+cluster://), through go-redis's universal client. Every key
// starts with a prefix per deployment ("replay:" unless set), and the keys
// of one tenant's conversation point share a Redis Cluster hash tag, so
// that each operation touches one slot while the slots spread over the
// tenants and conversations.
//
// # Layout
//
// Each [replayhttp.Key] has two Redis keys, which share a hash slot:
//
//	<prefix>z:{<len(tenant)>:<tenant>:<conversation>}   a sorted set: each document's hash, scored by when it was put
//	<prefix>d:{<len(tenant)>:<tenant>:<conversation>}   a hash: each document's hash and its bytes
//
// A Put (one script, atomic) drops the documents whose TTL has passed,
// adds (or refreshes) its own, keeps the MaxPerKey most recently put, and
// sets both keys to expire TTL after it: a document lives TTL after its
// own Put however often its key is put to, so a hot key holds at most
// MaxPerKey documents, all put within the TTL, and a read of it costs
// O(MaxPerKey) whatever the traffic. Times are the server's (TIME), so
// instances with skewed clocks agree.
//
// A Get (one script) reads the live documents, the least recently put
// first. What it reads is untrusted: a document larger than MaxEntryBytes
// is not even sent by the server, and one that is missing, or not valid
// JSON within the depth a request body may have, or a key of another type
// (written by something else), is skipped, counted
// ([Store.SkippedEntries]) and logged once per reason; it is never an
// error, so one bad entry never makes the proxy take Redis for down. Only
// a failure to reach Redis, or a timeout, is an error.
//
// Bound the memory with Redis's own maxmemory (maxmemory-policy
// volatile-ttl or allkeys-lru): StoreOptions' MaxTurns and MaxBytes do not
// apply.
package redisstore

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/skips"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/redis/go-redis/v9"
)

// Store is the Redis [replayhttp.Store]. It is safe for concurrent use.
type Store struct {
	c     redis.UniversalClient
	o     Options
	skips skips.Skips
}

// Options configure a Store.
type Options struct {
	// Prefix opens every key; "" means "replay:".
	Prefix string
	// TTL is how long a document is kept after it was put; 0 means one
	// hour.
	TTL time.Duration
	// MaxPerKey bounds the documents one key holds, the most recently
	// put; 0 means 8, less than 2 means 2.
	MaxPerKey int
	// MaxEntryBytes bounds a document: a larger one is refused at Put
	// (with a [*replayhttp.EntryError]) and skipped at Get without being
	// sent; 0 means 32 MiB.
	MaxEntryBytes int
	// Logger receives a line for the first entry skipped for each reason;
	// nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = "replay:"
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	switch {
	case o.MaxPerKey == 0:
		o.MaxPerKey = 8
	case o.MaxPerKey < 2:
		o.MaxPerKey = 2
	}
	if o.MaxEntryBytes <= 0 {
		o.MaxEntryBytes = 32 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// New returns a Store on an existing client (a *redis.Client, a
// Sentinel-backed failover client or a *redis.ClusterClient).
func New(c redis.UniversalClient, o Options) *Store {
	return &Store{c: c, o: o.withDefaults()}
}

// URLError reports a store URL Open cannot use. It never holds the URL's
// password.
type URLError struct {
	// URL is the URL with its password replaced by "xxxxx".
	URL string
	// Problem says what is wrong.
	Problem string
}

// Error renders the problem with the redacted URL.
func (e *URLError) Error() string { return "redisstore: " + e.URL + ": " + e.Problem }

// Redact returns a store URL with its password (in the user info, or in a
// password or sentinel_password query parameter) replaced by "xxxxx", for
// logs and messages; a string that does not parse as a URL is cut at its
// scheme.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, _, _ := strings.Cut(raw, "://")
		return scheme + "://xxxxx"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	for _, k := range []string{"password", "sentinel_password"} {
		if q.Has(k) {
			q.Set(k, "xxxxx")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Open connects to the Redis deployment a URL names:
//
//	redis://[user:password@]host:port[/db]                  one server; rediss:// for TLS
//	redis+sentinel://[user:password@]host:port[/db]?master_name=NAME[&addr=host:port]...
//	                                                        Sentinel (the sentinels' addresses; TLS: rediss+sentinel://)
//	redis+cluster://[user:password@]host:port[?addr=host:port]...
//	                                                        Cluster (seed nodes; TLS: rediss+cluster://)
//
// The query may set the key prefix (prefix=, else o.Prefix), the TLS
// files (ca_file= for a private certificate authority, cert_file= and
// key_file= for a client certificate, server_name=), and go-redis's own
// options (dial_timeout=, pool_size=, ...). Unless the URL says otherwise,
// the client gives up quickly (a dial within 500ms, a read or a write
// within 250ms, one retry), since a proxy passes requests through rather
// than wait on its store. The client connects on first use.
func Open(raw string, o Options) (*Store, error) {
	fail := func(problem string) (*Store, error) {
		return nil, &URLError{URL: Redact(raw), Problem: problem}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fail("not a URL")
	}
	scheme, form, _ := strings.Cut(u.Scheme, "+")
	if scheme != "redis" && scheme != "rediss" || form != "" && form != "sentinel" && form != "cluster" {
		return fail("want redis://, rediss://, redis+sentinel://, redis+cluster:// (or their rediss+ forms)")
	}
	q := u.Query()
	if p := q.Get("prefix"); p != "" {
		o.Prefix = p
	}
	var tlsFiles [4]string
	for i, k := range []string{"ca_file", "cert_file", "key_file", "server_name"} {
		tlsFiles[i] = q.Get(k)
		q.Del(k)
	}
	q.Del("prefix")
	if scheme == "redis" && (tlsFiles != [4]string{}) {
		return fail("ca_file, cert_file, key_file and server_name need TLS: use rediss")
	}
	u.Scheme, u.RawQuery = scheme, q.Encode()
	var c redis.UniversalClient
	switch form {
	case "":
		ro, err := redis.ParseURL(u.String())
		if err == nil {
			quick(&ro.DialTimeout, &ro.ReadTimeout, &ro.WriteTimeout, &ro.MaxRetries, q)
			err = tlsFrom(ro.TLSConfig, tlsFiles)
		}
		if err != nil {
			return fail(cleanErr(err))
		}
		c = redis.NewClient(ro)
	case "sentinel":
		fo, err := redis.ParseFailoverURL(u.String())
		if err == nil && fo.MasterName == "" {
			err = errors.New("a Sentinel URL needs master_name=")
		}
		if err == nil {
			quick(&fo.DialTimeout, &fo.ReadTimeout, &fo.WriteTimeout, &fo.MaxRetries, q)
			err = tlsFrom(fo.TLSConfig, tlsFiles)
		}
		if err != nil {
			return fail(cleanErr(err))
		}
		c = redis.NewFailoverClient(fo)
	default:
		co, err := redis.ParseClusterURL(u.String())
		if err == nil {
			quick(&co.DialTimeout, &co.ReadTimeout, &co.WriteTimeout, &co.MaxRetries, q)
			err = tlsFrom(co.TLSConfig, tlsFiles)
		}
		if err != nil {
			return fail(cleanErr(err))
		}
		c = redis.NewClusterClient(co)
	}
	return New(c, o), nil
}

// quick sets the client's timeouts and retries to the store's defaults
// where the URL's query did not set them.
func quick(dial, read, write *time.Duration, retries *int, q url.Values) {
	if !q.Has("dial_timeout") {
		*dial = 500 * time.Millisecond
	}
	if !q.Has("read_timeout") {
		*read = 250 * time.Millisecond
	}
	if !q.Has("write_timeout") {
		*write = 250 * time.Millisecond
	}
	if !q.Has("max_retries") {
		*retries = 1
	}
}

// tlsFrom adds the TLS files (ca_file, cert_file, key_file, server_name)
// to a TLS configuration; c is nil without TLS.
func tlsFrom(c *tls.Config, files [4]string) error {
	if c == nil {
		return nil
	}
	ca, cert, key, name := files[0], files[1], files[2], files[3]
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return fmt.Errorf("ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("ca_file %s: no PEM certificate in it", ca)
		}
		c.RootCAs = pool
	}
	if (cert == "") != (key == "") {
		return errors.New("cert_file and key_file go together")
	}
	if cert != "" {
		kp, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("cert_file, key_file: %w", err)
		}
		c.Certificates = []tls.Certificate{kp}
	}
	if name != "" {
		c.ServerName = name
	}
	if c.MinVersion == 0 {
		c.MinVersion = tls.VersionTLS12
	}
	return nil
}

// cleanErr is a parse error of go-redis without its "redis: " prefix.
func cleanErr(err error) string { return strings.TrimPrefix(err.Error(), "redis: ") }

// keys returns the sorted set and the hash of key.
func (s *Store) keys(k replayhttp.Key) []string {
	tag := "{" + strconv.Itoa(len(k.Tenant)) + ":" + k.Tenant + ":" + k.Conversation + "}"
	return []string{s.o.Prefix + "z:" + tag, s.o.Prefix + "d:" + tag}
}

// putScript: KEYS[1] the sorted set, KEYS[2] the hash; ARGV[1] the
// document's hash, ARGV[2] the document, ARGV[3] the TTL in µs, ARGV[4]
// MaxPerKey. A key of another type (written by something else) is
// replaced, and the reply says so.
var putScript = redis.NewScript(`
local function num(x) return string.format('%.0f', x) end
local z, d = KEYS[1], KEYS[2]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl, cap = tonumber(ARGV[3]), tonumber(ARGV[4])
local replaced = 0
local zt, dt = redis.call('TYPE', z)['ok'], redis.call('TYPE', d)['ok']
if (zt ~= 'none' and zt ~= 'zset') or (dt ~= 'none' and dt ~= 'hash') then
  redis.call('DEL', z, d)
  replaced = 1
end
local old = redis.call('ZRANGE', z, '-inf', num(now - ttl), 'BYSCORE')
for _, m in ipairs(old) do redis.call('HDEL', d, m) end
redis.call('ZREMRANGEBYSCORE', z, '-inf', num(now - ttl))
redis.call('ZADD', z, num(now), ARGV[1])
redis.call('HSET', d, ARGV[1], ARGV[2])
local n = redis.call('ZCARD', z)
if n > cap then
  local drop = redis.call('ZRANGE', z, 0, n - cap - 1)
  for _, m in ipairs(drop) do redis.call('HDEL', d, m) end
  redis.call('ZREMRANGEBYRANK', z, 0, n - cap - 1)
end
local ms = num(math.ceil(ttl / 1000))
redis.call('PEXPIRE', z, ms)
redis.call('PEXPIRE', d, ms)
return replaced
`)

// getScript: KEYS[1] the sorted set, KEYS[2] the hash; ARGV[1] the TTL in
// µs, ARGV[2] MaxPerKey, ARGV[3] MaxEntryBytes. It replies with pairs, the
// least recently put first: "ok" and the document, "missing" and "" (a
// member with no document), "large" and the document's size (not sent);
// or one pair "type" and the type of a key of another type.
var getScript = redis.NewScript(`
local function num(x) return string.format('%.0f', x) end
local z, d = KEYS[1], KEYS[2]
local zt = redis.call('TYPE', z)['ok']
if zt == 'none' then return {} end
if zt ~= 'zset' then return {'type', zt} end
local dt = redis.call('TYPE', d)['ok']
if dt ~= 'hash' and dt ~= 'none' then return {'type', dt} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ms = redis.call('ZRANGE', z, '+inf', '(' .. num(now - tonumber(ARGV[1])), 'BYSCORE', 'REV', 'LIMIT', 0, ARGV[2])
local out = {}
for i = #ms, 1, -1 do
  local n = redis.call('HSTRLEN', d, ms[i])
  if n == 0 then
    out[#out + 1] = 'missing'; out[#out + 1] = ''
  elseif n > tonumber(ARGV[3]) then
    out[#out + 1] = 'large'; out[#out + 1] = tostring(n)
  else
    out[#out + 1] = 'ok'; out[#out + 1] = redis.call('HGET', d, ms[i])
  end
end
return out
`)

func (s *Store) ttlMicros() int64 { return s.o.TTL.Microseconds() }

// Put keeps doc under key (see the package documentation). A document
// larger than MaxEntryBytes is refused with a [*replayhttp.EntryError].
func (s *Store) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	if len(doc) == 0 {
		return nil
	}
	if len(doc) > s.o.MaxEntryBytes {
		return &replayhttp.EntryError{Key: key, Reason: fmt.Sprintf("a document of %d bytes is larger than the Redis store keeps (%d)", len(doc), s.o.MaxEntryBytes)}
	}
	sum := sha256.Sum256(doc)
	replaced, err := putScript.Run(ctx, s.c, s.keys(key), hex.EncodeToString(sum[:16]), doc, s.ttlMicros(), s.o.MaxPerKey).Int()
	if err != nil {
		return fmt.Errorf("redisstore: put: %w", err)
	}
	if replaced == 1 {
		s.skips.Skip(s.o.Logger, "redis", "a key of another type, replaced by a Put", key)
	}
	return nil
}

// Get returns the documents kept under key that have not expired, the
// least recently put first; none when the key is unknown. Entries whose
// data cannot be used are skipped (see the package documentation).
func (s *Store) Get(ctx context.Context, key replayhttp.Key) ([][]byte, error) {
	vals, err := getScript.Run(ctx, s.c, s.keys(key), s.ttlMicros(), s.o.MaxPerKey, s.o.MaxEntryBytes).StringSlice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redisstore: get: %w", err)
	}
	var out [][]byte
	for i := 0; i+1 < len(vals); i += 2 {
		switch st, v := vals[i], vals[i+1]; {
		case st == "type":
			s.skips.Skip(s.o.Logger, "redis", "a key of another type ("+v+")", key)
		case st == "missing":
			s.skips.Skip(s.o.Logger, "redis", "a document missing from its key's hash", key)
		case st == "large":
			s.skips.Skip(s.o.Logger, "redis", "a document larger than MaxEntryBytes", key)
		case !jsonw.Valid(v):
			s.skips.Skip(s.o.Logger, "redis", "a document that is not valid JSON within the depth a request body may have", key)
		default:
			out = append(out, []byte(v))
		}
	}
	return out, nil
}

// SkippedEntries returns the number of entries skipped because their data
// could not be used.
func (s *Store) SkippedEntries() uint64 { return s.skips.Count() }

// Close closes the client.
func (s *Store) Close() error { return s.c.Close() }

// Ping reports whether Redis answers (every node, for a Cluster).
func (s *Store) Ping(ctx context.Context) error {
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		return cc.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() })
	}
	return s.c.Ping(ctx).Err()
}
