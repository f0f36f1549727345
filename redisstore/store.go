// Package redisstore is a [replayhttp.Store] kept in Redis, so that several
// `replay proxy` instances behind a load balancer share the captured
// turns: a conversation may land on any instance. It lives in a module of
// its own so that the library does not depend on a Redis client.
//
// Importing the package registers the redis:// and rediss:// schemes with
// [replayproxy.OpenStore]; the module's replay-proxy command is
// `replay proxy` with that store:
//
//	go run github.com/reasonreplay/replay/redisstore/cmd/replay-proxy \
//		--listen 127.0.0.1:8080 --store redis://127.0.0.1:6379/0 --upstream anthropic=https://api.anthropic.com
//
// A turn is kept once, under replay:turn:<hash of its document>, and each
// key the next request may carry is a set of those hashes; every entry
// expires after the TTL. Bound the memory with Redis's own maxmemory
// (with maxmemory-policy volatile-ttl or allkeys-lru): StoreOptions'
// MaxTurns and MaxBytes do not apply. A Redis Cluster is not supported (a
// Get reads several keys at once).
package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/reasonreplay/replay/replayhttp"
	"github.com/reasonreplay/replay/replayproxy"
	"github.com/redis/go-redis/v9"
)

func init() {
	open := func(uri string, o replayproxy.StoreOptions) (replayhttp.Store, error) { return Open(uri, o.TTL) }
	replayproxy.RegisterStore("redis", open)
	replayproxy.RegisterStore("rediss", open)
}

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

// New returns a Store on an existing client.
func New(c redis.UniversalClient, o Options) *Store {
	if o.Prefix == "" {
		o.Prefix = "replay:"
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	return &Store{c: c, prefix: o.Prefix, ttl: o.TTL}
}

// Open connects to the Redis server a URL names
// (redis://[user:password@]host:port/db, or rediss:// for TLS; the
// query may set go-redis options such as dial_timeout). Unless the URL
// says otherwise, the client gives up quickly (a dial within 500ms, a
// read or a write within 250ms, one retry), since the proxy passes
// requests through rather than wait on its store.
func Open(url string, ttl time.Duration) (*Store, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, &replayproxy.ConfigError{Where: "--store", Problem: "not a Redis URL: " + err.Error()}
	}
	if o.DialTimeout == 0 {
		o.DialTimeout = 500 * time.Millisecond
	}
	if o.ReadTimeout == 0 {
		o.ReadTimeout = 250 * time.Millisecond
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = 250 * time.Millisecond
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 1
	}
	return New(redis.NewClient(o), Options{TTL: ttl}), nil
}

func (s *Store) turnKey(h string) string { return s.prefix + "turn:" + h }
func (s *Store) setKey(k replayhttp.Key) string {
	return s.prefix + "key:" + k.Tenant + ":" + k.Conversation
}

// Put keeps doc under key, in one transaction.
func (s *Store) Put(ctx context.Context, key replayhttp.Key, doc []byte) error {
	if len(doc) == 0 {
		return nil
	}
	sum := sha256.Sum256(doc)
	h := hex.EncodeToString(sum[:16])
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.turnKey(h), doc, s.ttl)
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
		names[i] = s.turnKey(h)
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
