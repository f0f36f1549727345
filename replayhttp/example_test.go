package replayhttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/tidwall/gjson"
)

// A client whose calls are captured, audited before sending and repaired
// from a store: one Transport under any Go HTTP client.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, anthropicJSON("EqQBsig", "toolu_1"))
	}))
	defer srv.Close()

	client := &http.Client{Transport: &replayhttp.Transport{
		Store: &replayhttp.MemoryStore{},
		Audit: replayhttp.AuditRefuse,
	}}
	ctx, call := replayhttp.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(anthropicFirst))
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	turn, err := call.Turn()
	fmt.Println(err, turn.Items()[0].(*replay.ReasoningText).Signature.Value(), turn.ToolCalls()[0].ID)
	// Output: <nil> EqQBsig toolu_1
}

// The middleware form, for openai-go and anthropic-sdk-go:
//
//	tr := &replayhttp.Transport{Audit: replayhttp.AuditRefuse}
//	client := anthropic.NewClient(option.WithMiddleware(tr.Middleware))
func ExampleTransport_Middleware() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	tr := &replayhttp.Transport{Audit: replayhttp.AuditRefuse}
	// An assistant message that lost its thinking block, in a thinking tool loop.
	body := anthropicFollowUp(`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]}`, "toolu_1")
	ctx, call := replayhttp.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
	resp, err := tr.Middleware(req, http.DefaultTransport.RoundTrip)
	if err != nil {
		panic(err)
	}
	// The SDK reads the provider's own 400, and does not retry it.
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, gjson.GetBytes(b, "error.type"), gjson.GetBytes(b, "replay.rule"))
	// The call's Capture holds why.
	var refused *replayhttp.AuditError
	if _, err := call.Turn(); errors.As(err, &refused) {
		v := refused.Report.Violations[0]
		fmt.Println(v.Rule, v.Pointer)
	}
	// Output:
	// 400 invalid_request_error anthropic/thinking-first
	// anthropic/thinking-first /messages/1/content/0/type
}

// Classify reads a provider's error and names the rule, the place and the
// fix for one retry.
func ExampleClassify() {
	body := []byte(`{"error":{"message":"Missing ` + "`reasoning_content`" + ` field in the assistant message at message index 3.","type":"invalid_request_error"}}`)
	c := replayhttp.Classify(400, body)
	fmt.Println(c.Rule, c.Pointer, c.Fix)
	// Output: deepseek/reasoning-content-missing /messages/3 backfill-reasoning-content
}

// A provider refuses a thinking block bound to another conversation; with
// Retry on, the Transport sends the request once more with drop_block
// set, and reports it.
func ExampleRetry() {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if n++; n == 1 {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid `+"`signature`"+` in `+"`thinking`"+` block. The block is bound to a different conversation."}}`)
			return
		}
		io.WriteString(w, anthropicJSON("EqQBsig", "toolu_2"))
	}))
	defer srv.Close()

	client := &http.Client{Transport: &replayhttp.Transport{Retry: &replayhttp.Retry{
		OnRetry: func(req *http.Request, r replayhttp.Retried) {
			fmt.Println(r.Status, r.Class.Rule, r.Class.Fix, "->", r.RetryStatus, req.Header.Get("anthropic-beta"))
		},
	}}}
	resp, err := client.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(anthropicFirst))
	if err != nil {
		panic(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 400 anthropic/prefix-mismatch drop-block -> 200 thinking-binding-controls-2026-08-01
	// 200
}

// A gateway names what it forwards (for its metrics and its traces) as
// the middleware will read it: the API from the route, the model from the
// body, wherever the body puts it (here after the messages, as
// anthropic-sdk-go writes it), or from the route where the API names it
// there.
func ExampleTransport_Recognise() {
	tr := &replayhttp.Transport{}
	body := []byte(`{"max_tokens":1024,"messages":[{"role":"user","content":"Hi"}],"model":"claude-opus-5-5"}`)
	req, _ := http.NewRequest(http.MethodPost, "https://api.anthropic.com/v1/messages", nil)
	api, model, ok := tr.Recognise(req, body)
	fmt.Println(api, model, ok)

	req, _ = http.NewRequest(http.MethodPost, "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro:generateContent", nil)
	api, model, ok = tr.Recognise(req, []byte(`{"contents":[]}`))
	fmt.Println(api, model, ok)

	req, _ = http.NewRequest(http.MethodPost, "https://example.com/not/an/api", nil)
	_, _, ok = tr.Recognise(req, body)
	fmt.Println(ok)
	// Output:
	// anthropic claude-opus-5-5 true
	// gemini gemini-3-pro true
	// false
}
