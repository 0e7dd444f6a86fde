// Package jobstate is what this process knows of the job running in it:
// its progress counts and stage clocks (Progress), the busy time of each
// stage reported to the runner's metrics (Begin, Busy, AddBusy), waiting
// for the stages to go idle (WaitIdle), and the test hooks of fault
// injection (SetFailOnce, SetStageHook), and the names of neardup's
// metrics (MetricsNamespace, BusyPrefix and the rest), which the command
// reads back from the runner. Every stage reports here; the command reads
// it for its progress lines.
package jobstate
