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
// Each turn is kept under PREFIX{TENANT:CONVERSATION}:turn:<hash of its
// document>, and the key the next request carries is a set of those
// hashes, PREFIX{TENANT:CONVERSATION}:key; every entry expires after the
// TTL. Bound the memory with Redis's own maxmemory (with maxmemory-policy
// volatile-ttl or allkeys-lru).
package redisstore

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/reasonreplay/replay/replayhttp"
	"github.com/redis/go-redis/v9"
)

// Store is the Redis [replayhttp.Store]. It is safe for concurrent use.
type Store struct {
	c      redis.UniversalClient
	prefix string
	ttl    time.Duration
}

// Options configure a Store.
type Options struct {
	// Prefix opens every key; "" means "replay:".
	Prefix string
	// TTL is how long a turn (and each key naming it) is kept; 0 means one
	// hour.
	TTL time.Duration
}

// New returns a Store on an existing client (a *redis.Client, a
// Sentinel-backed failover client or a *redis.ClusterClient).
func New(c redis.UniversalClient, o Options) *Store {
	if o.Prefix == "" {
		o.Prefix = "replay:"
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	return &Store{c: c, prefix: o.Prefix, ttl: o.TTL}
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

// tag is the Redis Cluster hash tag of a key's entries: one slot for a
// tenant's conversation point, the slots spread over the others.
func (s *Store) tag(k replayhttp.Key) string {
	return s.prefix + "{" + k.Tenant + ":" + k.Conversation + "}:"
}

func (s *Store) turnKey(k replayhttp.Key, h string) string { return s.tag(k) + "turn:" + h }
func (s *Store) setKey(k replayhttp.Key) string            { return s.tag(k) + "key" }

// Put keeps doc under key, in one transaction.
func (s *Store) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	if len(doc) == 0 {
		return nil
	}
	sum := sha256.Sum256(doc)
	h := hex.EncodeToString(sum[:16])
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.turnKey(key, h), doc, s.ttl)
		p.SAdd(ctx, s.setKey(key), h)
		p.PExpire(ctx, s.setKey(key), s.ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redisstore: put: %w", err)
	}
	return nil
}

// Get returns the documents kept under key that have not expired, in the
// order of their hashes; none when the key is unknown.
func (s *Store) Get(ctx context.Context, key replayhttp.Key) ([][]byte, error) {
	hs, err := s.c.SMembers(ctx, s.setKey(key)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redisstore: get: %w", err)
	}
	if len(hs) == 0 {
		return nil, nil
	}
	sort.Strings(hs)
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = s.turnKey(key, h)
	}
	vals, err := s.c.MGet(ctx, names...).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: get: %w", err)
	}
	var out [][]byte
	for _, v := range vals {
		doc, ok := v.(string)
		if !ok { // expired since the set was read
			continue
		}
		out = append(out, []byte(doc))
	}
	return out, nil
}

// Close closes the client.
func (s *Store) Close() error { return s.c.Close() }

// Ping reports whether Redis answers (every node, for a Cluster).
func (s *Store) Ping(ctx context.Context) error {
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		return cc.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() })
	}
	return s.c.Ping(ctx).Err()
}
