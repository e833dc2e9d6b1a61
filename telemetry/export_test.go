package telemetry

// ExportFailed reports whether the last export failed: a test waits for
// it rather than sleeping for the batch and its export timeout.
func (t *Telemetry) ExportFailed() bool { return t.exp.failed.Load() }
