package command

import (
	"context"
	"net/url"
	"time"

	"github.com/reasonreplay/replay/replayproxy"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// tracing sets cfg's tracer provider to export a span per request over
// OTLP/HTTP to endpoint (a collector's base URL, or its /v1/traces URL);
// it does nothing when endpoint is empty. stop flushes what is pending.
func tracing(ctx context.Context, endpoint string, cfg *replayproxy.Config) (stop func(), err error) {
	if endpoint == "" {
		return func() {}, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &ConfigError{Where: "--otlp-endpoint", Problem: "want the collector's http(s) URL, such as http://127.0.0.1:4318"}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u.String()))
	if err != nil {
		return nil, &ConfigError{Where: "--otlp-endpoint", Problem: err.Error()}
	}
	res := resource.NewSchemaless(attribute.String("service.name", Name), attribute.String("service.version", cfg.Version))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	cfg.TracerProvider = tp
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tp.Shutdown(sctx)
	}, nil
}
