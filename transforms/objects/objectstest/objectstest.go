// Package objectstest runs object stores in a test's process, for tests of
// code that reads gs:// and s3:// objects: fake-gcs-server for GCS and
// gofakes3 for S3, each with the environment that points the Go clients,
// and so Beam's gcs and s3 filesystems and package objects, at it.
package objectstest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Time is the modification time of every object a Store puts, so that an
// object put again differs from the one before by its version only (GCS
// generation, S3 ETag).
var Time = time.Now().Truncate(time.Second)

// Store is an object store started for a test, with one bucket.
type Store struct {
	Prefix string // "gs://BUCKET/" or "s3://BUCKET/"
	put    func(t testing.TB, name string, data []byte)
}

// Put stores data as the object name of the store's bucket, replacing any
// object of that name.
func (s *Store) Put(t testing.TB, name string, data []byte) { s.put(t, name, data) }

// GCS starts fake-gcs-server with the bucket and points
// STORAGE_EMULATOR_HOST at it for the rest of the test. wrap, if not nil,
// wraps the server's handler (to count requests, say).
func GCS(t testing.TB, bucket string, wrap func(http.Handler) http.Handler) *Store {
	ts := httptest.NewUnstartedServer(nil)
	// The Go client reads objects by the XML API's paths, which the
	// server serves only for its PublicHost.
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, PublicHost: ts.Listener.Addr().String(), Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler()
	if wrap != nil {
		h = wrap(h)
	}
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Stop)
	srv.CreateBucket(bucket)
	t.Setenv("STORAGE_EMULATOR_HOST", ts.Listener.Addr().String())
	return &Store{Prefix: "gs://" + bucket + "/", put: func(t testing.TB, name string, data []byte) {
		srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: name, Created: Time, Updated: Time}, Content: data})
	}}
}

// S3 starts gofakes3 with the bucket and points the AWS SDK's default
// configuration at it for the rest of the test (an IP address as the
// endpoint: path-style addressing). wrap, if not nil, wraps the server's
// handler.
func S3(t testing.TB, bucket string, wrap func(http.Handler) http.Handler) *Store {
	backend := s3mem.New(s3mem.WithTimeSource(gofakes3.FixedTimeSource(Time)))
	h := gofakes3.New(backend).Server()
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	for k, v := range map[string]string{"AWS_ENDPOINT_URL": ts.URL, "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test",
		"AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null"} {
		t.Setenv(k, v)
	}
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := s3.NewFromConfig(cfg)
	return &Store{Prefix: "s3://" + bucket + "/", put: func(t testing.TB, name string, data []byte) {
		if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: &name, Body: bytes.NewReader(data)}); err != nil {
			t.Fatal(err)
		}
	}}
}
