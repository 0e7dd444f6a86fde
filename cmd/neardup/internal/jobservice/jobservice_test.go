package jobservice

import (
	"context"
	"encoding/json"
	"net"
	"testing"

	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"
)

// recordingJobService keeps the last PrepareJobRequest it was sent.
type recordingJobService struct {
	jobpb.UnimplementedJobServiceServer
	got *jobpb.PrepareJobRequest
}

func (r *recordingJobService) Prepare(_ context.Context, req *jobpb.PrepareJobRequest) (*jobpb.PrepareJobResponse, error) {
	r.got = req
	return &jobpb.PrepareJobResponse{PreparationId: "prep-1"}, nil
}

func (r *recordingJobService) GetState(_ context.Context, req *jobpb.GetJobStateRequest) (*jobpb.JobStateEvent, error) {
	return &jobpb.JobStateEvent{State: jobpb.JobState_DONE}, nil
}

// TestProxyJobService: the proxy adds portableOptions to a job's pipeline
// options, keeps an option the job set itself, and forwards the other
// calls and the answers unchanged.
func TestProxyJobService(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingJobService{}
	srv := grpc.NewServer()
	jobpb.RegisterJobServiceServer(srv, rec)
	go srv.Serve(lis)
	defer srv.Stop()

	ctx := context.Background()
	addr, stop, err := proxyJobService(ctx, lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	client := jobpb.NewJobServiceClient(cc)

	opts, _ := structpb.NewStruct(map[string]any{
		"beam:option:app_name:v1":                 "neardup",
		"beam:option:environment_cache_millis:v1": 5,
	})
	resp, err := client.Prepare(ctx, &jobpb.PrepareJobRequest{JobName: "j", PipelineOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetPreparationId() != "prep-1" {
		t.Errorf("preparation id %q through the proxy, want prep-1", resp.GetPreparationId())
	}
	f := rec.got.GetPipelineOptions().GetFields()
	if got := f["beam:option:environment_cache_millis:v1"].GetNumberValue(); got != 5 {
		t.Errorf("environment_cache_millis = %v; want the job's own 5", got)
	}
	if f["beam:option:app_name:v1"].GetStringValue() != "neardup" || rec.got.GetJobName() != "j" {
		t.Errorf("the job's own options and name were not forwarded: %v", rec.got)
	}

	rec.got = nil
	if _, err := client.Prepare(ctx, &jobpb.PrepareJobRequest{JobName: "k"}); err != nil {
		t.Fatal(err)
	}
	f = rec.got.GetPipelineOptions().GetFields()
	for name, v := range portableOptions {
		want, _ := structpb.NewValue(v)
		if got := f["beam:option:"+name+":v1"]; got.String() != want.String() {
			t.Errorf("%s = %v; want %v", name, got, v)
		}
	}
	st, err := client.GetState(ctx, &jobpb.GetJobStateRequest{JobId: "x"})
	if err != nil || st.GetState() != jobpb.JobState_DONE {
		t.Errorf("GetState through the proxy: %v, %v", st, err)
	}
}

func TestAddRunnerOption(t *testing.T) {
	defer func(saved map[string]any) { portableOptions = saved }(portableOptions)
	portableOptions = map[string]any{}
	for _, arg := range []string{"files_to_stage=[]", "environment_cache_millis=2500", "job_name=x y", "flag=true"} {
		if err := AddOption(arg); err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
	}
	want := map[string]string{"files_to_stage": "[]", "environment_cache_millis": "2500", "job_name": `"x y"`, "flag": "true"}
	for name, w := range want {
		if b, _ := json.Marshal(portableOptions[name]); string(b) != w {
			t.Errorf("%s = %s; want %s", name, b, w)
		}
	}
	for _, bad := range []string{"novalue", "=1", "a:b=1"} {
		if err := AddOption(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestUseOnlyPortable: the proxy is only put in front of the portable
// runners: for the others Beam's --endpoint stays as given.
func TestUseOnlyPortable(t *testing.T) {
	saved := *jobopts.Endpoint
	defer func() { *jobopts.Endpoint = saved }()
	*jobopts.Endpoint = "localhost:1"
	stop, err := Use(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if *jobopts.Endpoint != "localhost:1" {
		t.Errorf("--endpoint %q; want it left as localhost:1", *jobopts.Endpoint)
	}
}
