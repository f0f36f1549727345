package redisstore_test

import (
	"fmt"

	"github.com/reasonreplay/replay/redisstore"
)

// A store on a Redis Cluster, its keys under this deployment's prefix;
// the client connects on first use. Messages never show the password.
func Example() {
	s, err := redisstore.Open("redis+cluster://127.0.0.1:7001?addr=127.0.0.1:7002&addr=127.0.0.1:7003&prefix=team-a:", redisstore.Options{})
	fmt.Printf("%T %v\n", s, err)
	s.Close()
	_, err = redisstore.Open("redis://user:hunter2@127.0.0.1:6379/x", redisstore.Options{})
	fmt.Println(err)
	// Output:
	// *redisstore.Store <nil>
	// redisstore: redis://user:xxxxx@127.0.0.1:6379/x: invalid database number: "x"
}
