package main

import (
	"context"
	"sync"

	"github.com/yagent/yagent/internal/buildinfo"
	"github.com/yagent/yagent/telemetry"
)

// telemetryState is the factory's exporter of traces, started once by
// the first command that runs the director (openSession) and stopped by
// Factory.Close.
type telemetryState struct {
	once sync.Once
	t    *telemetry.Telemetry
	err  error
}

// startTelemetry starts exporting traces when telemetry is configured
// (telemetry: or OTEL_EXPORTER_OTLP_*); off, it initialises nothing. A
// malformed endpoint or header variable is a *telemetry.ConfigError
// (exit 2).
func (f *Factory) startTelemetry(ctx context.Context) error {
	f.tel.once.Do(func() {
		cfg, err := f.Config()
		if err != nil {
			f.tel.err = err
			return
		}
		opts, err := telemetry.Resolve(cfg.Telemetry, f.Getenv)
		if err != nil {
			f.tel.err = err
			return
		}
		opts.Version, opts.Stderr = buildinfo.Version(), f.IO.ErrOut
		f.tel.t, f.tel.err = telemetry.Setup(ctx, opts)
	})
	return f.tel.err
}

// stopTelemetry flushes what is queued, bounded by
// telemetry.shutdown_timeout.
func (f *Factory) stopTelemetry() {
	f.tel.t.Shutdown(context.Background())
}
