// Command hello-http is cmd/hello linking net/http, as the replay command
// does through the library's API (http.Header, *http.Request): the start
// that linking alone costs (net/http's package initialisation; in a build
// with cgo enabled, which the release build is not, also net's cgo
// resolver, which makes the binary dynamically linked). TestWholeProcess
// gives it beside `replay --version`.
package main

import (
	"fmt"
	_ "net/http"
)

func main() { fmt.Println("hello") }
