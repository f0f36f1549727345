package replayproxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/reasonreplay/replay/replayproxy"
	"github.com/tidwall/gjson"
)

// A proxy in front of an Anthropic-shaped upstream: the agent drops the
// thinking block when it rebuilds its history, the proxy puts it back.
func Example() {
	var last string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		last = string(b)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, anthropicSSE("EqQBsig", "toolu_1"))
	}))
	defer upstream.Close()

	srv, err := replayproxy.New(replayproxy.Config{
		Upstreams: []replayproxy.Upstream{{Name: "anthropic", URL: upstream.URL}},
		Mode:      replayproxy.ModeReport,
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	proxy := httptest.NewServer(srv)
	defer proxy.Close()

	call := func(body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/anthropic/v1/messages", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", "sk-ant-example") // the tenant whose turns are kept
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	call(anthropicRequest(firstUser))
	resp := call(followUp(`{"role":"assistant","content":[`+toolUse("toolu_1")+`]}`, "toolu_1"))
	fmt.Println(resp.Header.Get(replayproxy.HeaderRepairs))
	fmt.Println(resp.Header.Get(replayproxy.HeaderAudit))
	fmt.Println(gjson.Get(last, "messages.1.content.0.signature"))
	// Output:
	// restored=1
	// clean
	// EqQBsig
}
