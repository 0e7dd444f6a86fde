package objects

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// s3Env is the environment that configures the AWS SDK's default
// configuration as far as this package's client cache tells clients
// apart.
var s3Env = []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID"}

// s3Client returns this process's S3 client, built as Beam's s3
// filesystem builds its own: the AWS SDK's default configuration.
func s3Client(ctx context.Context) (*s3.Client, error) {
	key := "s3"
	for _, v := range s3Env {
		key += "\x00" + os.Getenv(v)
	}
	return client(ctx, key, func(ctx context.Context) (*s3.Client, error) {
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, err
		}
		return s3.NewFromConfig(cfg), nil
	})
}

// openS3 sets o to the current version of s3://bucket/key.
func openS3(ctx context.Context, o *Object, bucket, key string) error {
	c, err := s3Client(ctx)
	if err != nil {
		return fmt.Errorf("an S3 client: %w", err)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return err
	}
	etag := aws.ToString(head.ETag)
	if etag == "" {
		return fmt.Errorf("%w: no ETag", ErrNotRanged)
	}
	o.Size, o.ModTime = aws.ToInt64(head.ContentLength), aws.ToTime(head.LastModified)
	o.Version = "etag=" + etag
	o.store = s3Object{c: c, bucket: bucket, key: key, etag: etag}
	return nil
}

// s3Object is one version of an S3 object, known by its ETag.
type s3Object struct {
	c           *s3.Client
	bucket, key string
	etag        string
}

func (s s3Object) open(ctx context.Context, off, n int64) (io.ReadCloser, error) {
	rng := fmt.Sprintf("bytes=%d-", off)
	if n >= 0 {
		rng += fmt.Sprint(off + n - 1)
	}
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &s.key, Range: &rng, IfMatch: &s.etag})
	var api smithy.APIError
	if errors.As(err, &api) && (api.ErrorCode() == "PreconditionFailed" || api.ErrorCode() == "NoSuchKey") {
		return nil, fmt.Errorf("%w: ETag %s is gone", ErrChanged, s.etag)
	}
	if err != nil {
		return nil, err
	}
	// If-Match makes S3 refuse another version; a server that ignores it
	// is caught here.
	if got := aws.ToString(out.ETag); got != "" && strings.Trim(got, `"`) != strings.Trim(s.etag, `"`) {
		out.Body.Close()
		return nil, fmt.Errorf("%w: ETag %s read, %s opened", ErrChanged, got, s.etag)
	}
	return out.Body, nil
}
