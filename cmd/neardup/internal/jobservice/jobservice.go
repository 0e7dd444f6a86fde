// Package jobservice puts a proxy in front of the job service of Beam's Java
// portable runners (Flink, Spark), adding the pipeline options the Go SDK
// cannot send.
package jobservice

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"
)

// portableOptions are pipeline options of Beam's Java portable runners
// (Flink, Spark) that the Go SDK has no way to send: it puts its own
// options under beam:option:go_options:v1, and the runners read only
// top-level beam:option:NAME:v1 entries.
//
// environment_cache_millis keeps a TaskManager's (or executor's) Go
// worker for the next stage of the job: with 0, Beam's default, the
// runner stops the worker when a stage's last task on it ends and starts
// a new one, staging the worker binary again and loading gse's
// dictionary again, for each of the job's stages (docs/CLUSTER.md and
// docs/BENCHMARKS.md have what it costs). The cache is short: a worker that died
// stays in it until it expires, and a task the runner restarts before
// then fails again on it, so a cluster's restart delay must be longer
// (scripts/flink-cluster.sh: 15 s).
var portableOptions = map[string]any{
	"environment_cache_millis": 10_000,
}

// AddOption adds --runner-option's NAME=VALUE to the options the proxy
// adds: VALUE as JSON if it is JSON, else as a string.
func AddOption(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" || strings.ContainsAny(name, ": ") {
		return fmt.Errorf("want NAME=VALUE, as environment_cache_millis=30000, not %q", s)
	}
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		v = value
	}
	portableOptions[name] = v
	return nil
}

// proxyJobService starts, on a loopback port, a job service that forwards
// every call to the one at endpoint, adding portableOptions to the
// pipeline options of the jobs it prepares, and their worker binary's
// SHA-256 to their PROCESS environments (keyWorker). It returns the proxy's
// address and a function that stops it. Artifact staging and the workers'
// connections go to the addresses the real job service gives, not
// through the proxy.
func proxyJobService(ctx context.Context, endpoint string) (string, func(), error) {
	cc, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30), grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		return "", nil, fmt.Errorf("job service %s: %w", endpoint, err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cc.Close()
		return "", nil, fmt.Errorf("job service proxy: %w", err)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(1<<30), grpc.MaxSendMsgSize(1<<30))
	jobpb.RegisterJobServiceServer(srv, &jobProxy{to: jobpb.NewJobServiceClient(cc)})
	go srv.Serve(lis)
	return lis.Addr().String(), func() { srv.Stop(); cc.Close() }, nil
}

// Use points Beam's --endpoint at a proxy that adds portableOptions, when
// the runner is one that reads them (portable); it returns a function that
// stops the proxy.
func Use(ctx context.Context, portable bool) (func(), error) {
	if !portable {
		return func() {}, nil
	}
	if *jobopts.Endpoint == "" {
		return func() {}, nil // Beam reports the missing endpoint
	}
	addr, stop, err := proxyJobService(ctx, *jobopts.Endpoint)
	if err != nil {
		return nil, err
	}
	*jobopts.Endpoint = addr
	return stop, nil
}

// jobProxy forwards the job service's calls; see proxyJobService.
type jobProxy struct {
	jobpb.UnimplementedJobServiceServer
	to jobpb.JobServiceClient
}

func (p *jobProxy) Prepare(ctx context.Context, req *jobpb.PrepareJobRequest) (*jobpb.PrepareJobResponse, error) {
	if req.PipelineOptions == nil {
		req.PipelineOptions = &structpb.Struct{}
	}
	if req.PipelineOptions.Fields == nil {
		req.PipelineOptions.Fields = map[string]*structpb.Value{}
	}
	for name, v := range portableOptions {
		key := "beam:option:" + name + ":v1"
		if _, set := req.PipelineOptions.Fields[key]; set {
			continue
		}
		val, err := structpb.NewValue(v)
		if err != nil {
			return nil, err
		}
		req.PipelineOptions.Fields[key] = val
	}
	if err := keyWorker(req.Pipeline); err != nil {
		return nil, fmt.Errorf("job service proxy: %w", err)
	}
	return p.to.Prepare(ctx, req)
}

func (p *jobProxy) Run(ctx context.Context, req *jobpb.RunJobRequest) (*jobpb.RunJobResponse, error) {
	return p.to.Run(ctx, req)
}

func (p *jobProxy) GetJobs(ctx context.Context, req *jobpb.GetJobsRequest) (*jobpb.GetJobsResponse, error) {
	return p.to.GetJobs(ctx, req)
}

func (p *jobProxy) GetState(ctx context.Context, req *jobpb.GetJobStateRequest) (*jobpb.JobStateEvent, error) {
	return p.to.GetState(ctx, req)
}

func (p *jobProxy) GetPipeline(ctx context.Context, req *jobpb.GetJobPipelineRequest) (*jobpb.GetJobPipelineResponse, error) {
	return p.to.GetPipeline(ctx, req)
}

func (p *jobProxy) Cancel(ctx context.Context, req *jobpb.CancelJobRequest) (*jobpb.CancelJobResponse, error) {
	return p.to.Cancel(ctx, req)
}

func (p *jobProxy) Drain(ctx context.Context, req *jobpb.DrainJobRequest) (*jobpb.DrainJobResponse, error) {
	return p.to.Drain(ctx, req)
}

func (p *jobProxy) GetJobMetrics(ctx context.Context, req *jobpb.GetJobMetricsRequest) (*jobpb.GetJobMetricsResponse, error) {
	return p.to.GetJobMetrics(ctx, req)
}

func (p *jobProxy) DescribePipelineOptions(ctx context.Context, req *jobpb.DescribePipelineOptionsRequest) (*jobpb.DescribePipelineOptionsResponse, error) {
	return p.to.DescribePipelineOptions(ctx, req)
}

func (p *jobProxy) GetStateStream(req *jobpb.GetJobStateRequest, out jobpb.JobService_GetStateStreamServer) error {
	in, err := p.to.GetStateStream(out.Context(), req)
	if err != nil {
		return err
	}
	for {
		ev, err := in.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := out.Send(ev); err != nil {
			return err
		}
	}
}

func (p *jobProxy) GetMessageStream(req *jobpb.JobMessagesRequest, out jobpb.JobService_GetMessageStreamServer) error {
	in, err := p.to.GetMessageStream(out.Context(), req)
	if err != nil {
		return err
	}
	for {
		msg, err := in.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := out.Send(msg); err != nil {
			return err
		}
	}
}
