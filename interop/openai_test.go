package interop

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// responsesClient is an openai-go client of srv through the middleware,
// with a store and AuditRefuse, and the parameters of a store=false
// request whose input is a user message and items.
func responsesClient(srv *server) (openai.Client, func(items ...responses.ResponseInputItemUnionParam) responses.ResponseNewParams) {
	tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Audit: replayhttp.AuditRefuse}
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"),
		option.WithMiddleware(tr.Middleware), option.WithMaxRetries(0))
	user := responses.ResponseInputItemParamOfMessage("Weather in Zürich?", responses.EasyInputMessageRoleUser)
	return client, func(items ...responses.ResponseInputItemUnionParam) responses.ResponseNewParams {
		return responses.ResponseNewParams{
			Model: "gpt-5", Store: openai.Bool(false),
			Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
			Input:   responses.ResponseNewParamsInputUnion{OfInputItemList: append([]responses.ResponseInputItemUnionParam{user}, items...)},
		}
	}
}

// OpenAI Responses with store=false: the encrypted reasoning item must go
// back whole. The SDK route (each output item's RawJSON through
// param.Override) keeps it; a rebuilt input without it is repaired.
func TestOpenAIResponsesStoreFalse(t *testing.T) {
	blob := "gAAAAABoEnc-rypted/Blob+_0123=="
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { writeJSON(w, responsesBody(blob, "call_7")) })
	client, params := responsesClient(srv)
	ctx, call := replayhttp.WithCapture(context.Background())
	resp, err := client.Responses.New(ctx, params())
	require.NoError(t, err)
	tu, err := call.Turn()
	require.NoError(t, err)
	require.Len(t, tu.Items(), 1)
	assert.Equal(t, blob, tu.Items()[0].(*replay.Encrypted).Data)
	output := responses.ResponseInputItemParamOfFunctionCallOutput("18°C")
	output.OfFunctionCallOutput.CallID = openai.String("call_7")

	// 1. The SDK route: every output item back as it came.
	var items []responses.ResponseInputItemUnionParam
	for _, it := range resp.Output {
		items = append(items, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(it.RawJSON())))
	}
	_, err = client.Responses.New(context.Background(), params(append(items, output)...))
	require.NoError(t, err)
	in := gjson.GetBytes(srv.last(), "input").Array()
	require.Len(t, in, 4)
	assert.Equal(t, blob, in[1].Get("encrypted_content").Str)
	assert.Equal(t, "fc_call_7", in[2].Get("id").Str)

	// 2. The agent kept only the function call: repair puts the reasoning
	// item back in front of it, ciphertext byte for byte.
	fc := param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(
		`{"type":"function_call","id":"fc_call_7","call_id":"call_7","name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}`))
	ctx2, call2 := replayhttp.WithCapture(context.Background())
	_, err = client.Responses.New(ctx2, params(fc, output))
	require.NoError(t, err)
	in = gjson.GetBytes(srv.last(), "input").Array()
	require.Len(t, in, 4)
	assert.Equal(t, `{"type":"reasoning","id":"rs_call_7","summary":[],"encrypted_content":"`+blob+`"}`, in[1].Raw)
	assert.Equal(t, `{"type":"function_call","id":"fc_call_7","call_id":"call_7","name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}`, in[2].Raw)
	require.Len(t, call2.Repairs(), 1)
	assert.Equal(t, replayhttp.RepairRestored, call2.Repairs()[0].Action)

	// 3. A reasoning item without its follower is refused before sending.
	lone := param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(
		`{"type":"reasoning","id":"rs_lone","summary":[],"encrypted_content":"gAAAA"}`))
	n := len(srv.received())
	ctx3, call3 := replayhttp.WithCapture(context.Background())
	_, err = client.Responses.New(ctx3, params(lone))
	var apiErr *openai.Error
	require.ErrorAs(t, err, &apiErr, "the SDK's own typed error")
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, "invalid_request_error", apiErr.Type)
	var ae *replayhttp.AuditError
	_, err = call3.Turn()
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "openai/reasoning-without-follower", ae.Report.Violations[0].Rule)
	assert.Len(t, srv.received(), n, "nothing was sent")
}

// openai-go's ResponseInputItemParamOfFunctionCall rebuilds a function call
// without its fc_ id. Through the middleware with a store and AuditRefuse
// the request is not refused: the provider receives the reasoning item
// (dropped by the agent, or kept) and the function call with its fc_ id
// back, so the pair the provider minted goes back whole.
func TestOpenAIFunctionCallRebuiltWithoutID(t *testing.T) {
	blob := "gAAAAABoEnc-rypted/Blob+_8888=="
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { writeJSON(w, responsesBody(blob, "call_8")) })
	client, params := responsesClient(srv)
	resp, err := client.Responses.New(context.Background(), params())
	require.NoError(t, err)
	require.Len(t, resp.Output, 2)
	reasoning := param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(resp.Output[0].RawJSON()))
	output := responses.ResponseInputItemParamOfFunctionCallOutput("18°C")
	output.OfFunctionCallOutput.CallID = openai.String("call_8")

	for _, tc := range []struct {
		name  string
		items []responses.ResponseInputItemUnionParam
	}{
		{"reasoning dropped", nil},
		{"reasoning kept", []responses.ResponseInputItemUnionParam{reasoning}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rebuilt := responses.ResponseInputItemParamOfFunctionCall(`{"city":"Zürich"}`, "call_8", "get_weather")
			sdk, err := json.Marshal(rebuilt)
			require.NoError(t, err)
			require.False(t, gjson.GetBytes(sdk, "id").Exists(), "the SDK's function call has no id: %s", sdk)

			ctx, call := replayhttp.WithCapture(context.Background())
			_, err = client.Responses.New(ctx, params(append(tc.items, rebuilt, output)...))
			require.NoError(t, err, "not refused")
			in := gjson.GetBytes(srv.last(), "input").Array()
			require.Len(t, in, 4)
			assert.Equal(t, `{"type":"reasoning","id":"rs_call_8","summary":[],"encrypted_content":"`+blob+`"}`, in[1].Raw)
			assert.Equal(t, "function_call", in[2].Get("type").Str)
			assert.Equal(t, "fc_call_8", in[2].Get("id").Str, "the id that pairs the call with its reasoning item is back")
			assert.Equal(t, "call_8", in[2].Get("call_id").Str)
			assert.Equal(t, `{"city":"Zürich"}`, in[2].Get("arguments").Str)
			reps := call.Repairs()
			require.Len(t, reps, 1)
			assert.Equal(t, replayhttp.RepairRestored, reps[0].Action)
			assert.Equal(t, "/input/1", reps[0].Pointer)
			assert.Contains(t, reps[0].Detail, `the id "fc_call_8" that pairs an item with its reasoning was missing`)
			rep, ok := call.Report()
			require.True(t, ok)
			assert.False(t, rep.Rejects(), "%v", rep.Err())
		})
	}
}

// With the SDK's default retry options, a request the audit refuses makes
// exactly one attempt, without backoff, and the caller receives OpenAI's
// own typed error; the call's Capture holds the audit's reason.
func TestOpenAIRefusedOnceWithDefaultRetries(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) { writeJSON(w, responsesBody("gAAAA", "call_1")) })
	tr := &replayhttp.Transport{Audit: replayhttp.AuditRefuse}
	attempts := 0
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			attempts++
			return tr.Middleware(r, next)
		}))
	lone := param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(
		`{"type":"reasoning","id":"rs_lone","summary":[],"encrypted_content":"gAAAA"}`))
	ctx, call := replayhttp.WithCapture(context.Background())
	start := time.Now()
	_, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: []responses.ResponseInputItemUnionParam{
			responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser), lone}}})
	var apiErr *openai.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 1, attempts, "a refusal is not retried")
	assert.Less(t, time.Since(start), time.Second, "no backoff")
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, "invalid_request_error", apiErr.Type)
	assert.NotEmpty(t, apiErr.Message)
	var ae *replayhttp.AuditError
	_, err = call.Turn()
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "openai/reasoning-without-follower", ae.Report.Violations[0].Rule)
	assert.Empty(t, srv.received(), "nothing was sent")
}
