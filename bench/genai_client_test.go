package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/genai"
)

// sdkServer serves stream as the body of every request, as the Gemini API
// answers streamGenerateContent?alt=sse.
func sdkServer(tb testing.TB, body []byte) (*genai.Client, func()) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "bench", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c, srv.Close
}

// decodeGenAIClient runs the SDK's own stream: GenerateContentStream against a
// local server, each chunk decoded by the SDK into a
// GenerateContentResponse (its scanner, map decode, converter and struct
// decode), plus one loopback HTTP round trip.
func decodeGenAIClient(tb testing.TB, c *genai.Client) int {
	n := 0
	for r, err := range c.Models.GenerateContentStream(context.Background(), "gemini-3-flash-preview", genai.Text("hi"), nil) {
		if err != nil {
			tb.Fatal(err)
		}
		n += len(r.Candidates)
	}
	return n
}

func BenchmarkGeminiGenAIClient(b *testing.B) {
	c, stop := sdkServer(b, geminiData)
	defer stop()
	b.ReportAllocs()
	b.SetBytes(int64(len(geminiData)))
	for b.Loop() {
		decodeGenAIClient(b, c)
	}
}
