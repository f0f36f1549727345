package redisstore_test

import (
	"fmt"
	"time"

	"github.com/reasonreplay/replay/redisstore"
	"github.com/reasonreplay/replay/replayproxy"
)

// Importing redisstore lets the proxy's OpenStore (and so the --store
// flag) take redis:// URLs. The client connects on first use.
func Example() {
	s, err := replayproxy.OpenStore("redis://127.0.0.1:6379/0", replayproxy.StoreOptions{TTL: time.Hour})
	fmt.Printf("%T %v\n", s, err)
	s.(*redisstore.Store).Close()
	// Output: *redisstore.Store <nil>
}
