package transforms

import "sync/atomic"

// Progress counts work done by the DoFns of this process, for the
// command's progress lines on local runs (Prism and the direct runner run
// the DoFns in the command's own process). On a cluster the counts stay on
// the workers; the runner's metrics (busy_ms.<stage>) are the way to follow
// a job there. The counts are approximate under retries; summary.json has
// the exact ones.
var Progress struct {
	Read     atomic.Int64 // documents read by the first pass
	Signed   atomic.Int64 // documents signed
	Verified atomic.Int64 // candidate pairs verified (accepted or not)
	Matched  atomic.Int64 // pairs accepted
}
