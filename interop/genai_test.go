package interop

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonreplay/replay"
	"github.com/reasonreplay/replay/replayhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
	"google.golang.org/genai"
)

// Gemini 3 parallel calls through genai, which exposes no raw chunks: the
// middleware captures the signature, the SDK's round trip (the model's
// Content appended as it came) carries it back, and a model message the
// agent rebuilt from the calls alone is repaired.
func TestGenaiParallelCalls(t *testing.T) {
	sig := base64.StdEncoding.EncodeToString([]byte("gemini-3 thought signature \x00\xff\xfe for the first call"))
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "generateContent", true: "streamGenerateContent"}[streaming], func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
				if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
					writeSSE(w, "data: "+geminiBody(sig)+"\r\n\r\n")
					return
				}
				writeJSON(w, geminiBody(sig))
			})
			tr := &replayhttp.Transport{Store: &replayhttp.MemoryStore{}, Audit: replayhttp.AuditRefuse}
			client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
				APIKey: "test", Backend: genai.BackendGeminiAPI,
				HTTPClient: &http.Client{Transport: tr}, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
			})
			require.NoError(t, err)
			const model = "gemini-3-pro-preview"
			user := genai.NewContentFromText("Weather in Zürich and Bern?", genai.RoleUser)
			results := genai.NewContentFromParts([]*genai.Part{
				genai.NewPartFromFunctionResponse("get_weather", map[string]any{"t": 18}),
				genai.NewPartFromFunctionResponse("get_weather", map[string]any{"t": 16}),
			}, genai.RoleUser)

			ctx, call := replayhttp.WithCapture(context.Background())
			var content *genai.Content
			if streaming {
				for resp, err := range client.Models.GenerateContentStream(ctx, model, []*genai.Content{user}, nil) {
					require.NoError(t, err)
					content = resp.Candidates[0].Content
				}
			} else {
				resp, err := client.Models.GenerateContent(ctx, model, []*genai.Content{user}, nil)
				require.NoError(t, err)
				content = resp.Candidates[0].Content
			}
			tu, err := call.Turn()
			require.NoError(t, err)
			require.Len(t, tu.ToolCalls(), 2)
			require.Len(t, tu.Items(), 1)
			assert.Equal(t, sig, tu.Items()[0].(*replay.Encrypted).Data)

			// 1. The SDK round trip.
			_, err = client.Models.GenerateContent(context.Background(), model, []*genai.Content{user, content, results}, nil)
			require.NoError(t, err)
			parts := gjson.GetBytes(srv.last(), "contents.1.parts").Array()
			require.Len(t, parts, 2)
			assert.Equal(t, sig, parts[0].Get("thoughtSignature").Str)
			assert.False(t, parts[1].Get("thoughtSignature").Exists())

			// 2. Rebuilt from the calls alone: repaired.
			rebuilt := genai.NewContentFromParts([]*genai.Part{
				genai.NewPartFromFunctionCall("get_weather", map[string]any{"city": "Zürich"}),
				genai.NewPartFromFunctionCall("get_weather", map[string]any{"city": "Bern"}),
			}, genai.RoleModel)
			ctx2, call2 := replayhttp.WithCapture(context.Background())
			_, err = client.Models.GenerateContent(ctx2, model, []*genai.Content{user, rebuilt, results}, nil)
			require.NoError(t, err)
			parts = gjson.GetBytes(srv.last(), "contents.1.parts").Array()
			require.Len(t, parts, 2)
			assert.Equal(t, sig, parts[0].Get("thoughtSignature").Str)
			assert.False(t, parts[1].Get("thoughtSignature").Exists())
			require.Len(t, call2.Repairs(), 1)
			assert.Equal(t, replayhttp.RepairRestored, call2.Repairs()[0].Action)

			// 3. Without a store, the rebuilt history is refused before sending.
			bare := &replayhttp.Transport{Audit: replayhttp.AuditRefuse}
			c2, err := genai.NewClient(context.Background(), &genai.ClientConfig{
				APIKey: "test", Backend: genai.BackendGeminiAPI,
				HTTPClient: &http.Client{Transport: bare}, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
			})
			require.NoError(t, err)
			n := len(srv.received())
			ctx3, call3 := replayhttp.WithCapture(context.Background())
			_, err = c2.Models.GenerateContent(ctx3, model, []*genai.Content{user, rebuilt, results}, nil)
			var apiErr genai.APIError
			require.ErrorAs(t, err, &apiErr, "Google's error, as genai reads it")
			assert.Equal(t, http.StatusBadRequest, apiErr.Code)
			assert.Equal(t, "INVALID_ARGUMENT", apiErr.Status)
			var ae *replayhttp.AuditError
			_, err = call3.Turn()
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "gemini/missing-signature", ae.Report.Violations[0].Rule)
			assert.Len(t, srv.received(), n)
		})
	}
}
