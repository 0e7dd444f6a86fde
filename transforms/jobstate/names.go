package jobstate

// Beam metrics: MetricsNamespace holds neardup's; BusyPrefix starts the
// names of the counters of busy time per stage, in milliseconds summed over
// workers; SpanPrefix starts the names of the distributions of the times
// (Unix milliseconds) at which a stage's work started and ended: their
// minimum is when the stage first started and their maximum when it last
// ended. WorkerBusyPrefix and WorkerSignedPrefix start the names of the
// same busy time and of the documents signed by one worker process:
// WorkerBusyPrefix+WORKER+"/"+STAGE and WorkerSignedPrefix+WORKER, WORKER
// being the process's host:pid. WorkBytesPrefix starts the names of the
// counters of bytes written to work files, by kind: WorkBytesPrefix+KIND.
// SignedCounter names the counter of the documents signed, summed over
// workers; SpillNamesCounter the counter of the bytes of spill file names
// the workers handed to the runner (see package spilled).
const (
	MetricsNamespace   = "neardup"
	BusyPrefix         = "busy_ms."
	SpanPrefix         = "span_ms."
	WorkerBusyPrefix   = "worker_busy_ms."
	WorkerSignedPrefix = "worker_signed."
	WorkBytesPrefix    = "work_bytes."
	SignedCounter      = "signed"
	SpillNamesCounter  = "spill_name_bytes"
)
