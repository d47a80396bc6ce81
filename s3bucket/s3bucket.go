// Package s3bucket keeps fdyno's exports and imports in an S3 bucket, or
// in an S3-compatible store, through the AWS SDK for Go v2's S3 client:
// a [Bucket] is an [fdyno.ExportDestination] and an [fdyno.ImportSource].
// It is a package of its own so that the fdyno package needs no AWS SDK.
//
// Errors are typed as fdyno's buckets type them: a bucket that does not
// exist wraps [fdyno.ErrNoSuchBucket], one the credentials may not use
// wraps [fdyno.ErrAccessDenied], a missing object wraps
// [fs.ErrNotExist]; each also wraps the SDK's error.
package s3bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/fdyno/fdyno"
)

// API is the part of *s3.Client a Bucket uses.
type API interface {
	PutObject(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	ListObjectsV2(context.Context, *s3.ListObjectsV2Input, ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
	CreateMultipartUpload(context.Context, *s3.CreateMultipartUploadInput, ...func(*s3.Options)) (*s3.CreateMultipartUploadOutput, error)
	UploadPart(context.Context, *s3.UploadPartInput, ...func(*s3.Options)) (*s3.UploadPartOutput, error)
	CompleteMultipartUpload(context.Context, *s3.CompleteMultipartUploadInput, ...func(*s3.Options)) (*s3.CompleteMultipartUploadOutput, error)
	AbortMultipartUpload(context.Context, *s3.AbortMultipartUploadInput, ...func(*s3.Options)) (*s3.AbortMultipartUploadOutput, error)
}

// DefaultPartSize is the most bytes of an object a Bucket holds in
// memory: a larger object is sent as a multipart upload of parts of this
// size (S3's minimum part is 5 MiB).
const DefaultPartSize = 8 << 20

// Bucket is an S3 bucket, or the objects of one below a key prefix.
// Object key k of fdyno is the S3 key KeyPrefix+k.
//
// An object is stored when it is closed, whole (S3 shows no partial
// object); one written with a failure is not stored. A Bucket is safe
// for concurrent use by multiple goroutines.
type Bucket struct {
	Client API
	Name   string
	// KeyPrefix is put before every key (fdyno-server uses it to keep
	// each account's objects apart); empty: none.
	KeyPrefix string
	// Context bounds every request (nil: context.Background()).
	Context context.Context
	// PartSize is the size of an upload's parts (0: DefaultPartSize).
	PartSize int
}

func (b *Bucket) ctx() context.Context {
	if b.Context == nil {
		return context.Background()
	}
	return b.Context
}

// Error is a failed request of a Bucket.
type Error struct {
	Op, Bucket, Key string
	// Kind is fdyno.ErrNoSuchBucket, fdyno.ErrAccessDenied,
	// fs.ErrNotExist, or nil for another failure.
	Kind error
	// Err is the SDK's error.
	Err error
}

func (e *Error) Error() string {
	s := "s3bucket: " + e.Op + " s3://" + e.Bucket + "/" + e.Key
	if e.Kind != nil {
		s += ": " + e.Kind.Error()
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns Kind (when set) and Err.
func (e *Error) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Err}
	}
	return []error{e.Kind, e.Err}
}

// s3Error types err, from operation op on key.
func (b *Bucket) s3Error(op, key string, err error) error {
	var kind error
	var nb *types.NoSuchBucket
	var nk *types.NoSuchKey
	var api smithy.APIError
	switch {
	case errors.As(err, &nb):
		kind = fdyno.ErrNoSuchBucket
	case errors.As(err, &nk):
		kind = fs.ErrNotExist
	case errors.As(err, &api):
		switch api.ErrorCode() {
		case "NoSuchBucket":
			kind = fdyno.ErrNoSuchBucket
		case "NoSuchKey", "NotFound":
			kind = fs.ErrNotExist
		case "AccessDenied", "AllAccessDisabled", "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccountProblem":
			kind = fdyno.ErrAccessDenied
		}
	}
	return &Error{Op: op, Bucket: b.Name, Key: b.KeyPrefix + key, Kind: kind, Err: err}
}

// Create implements [fdyno.ExportDestination]: the object is sent with
// PutObject when it is closed, or, once it outgrows PartSize, as a
// multipart upload completed by Close.
func (b *Bucket) Create(key string) (io.WriteCloser, error) {
	if key == "" {
		return nil, &fdyno.ValidationError{Op: "Bucket", Reason: "empty object key"}
	}
	size := b.PartSize
	if size <= 0 {
		size = DefaultPartSize
	}
	return &object{b: b, key: key, size: size}, nil
}

// object is an object being written: at most one part in memory.
type object struct {
	b        *Bucket
	key      string
	size     int
	buf      bytes.Buffer
	uploadID *string
	parts    []types.CompletedPart
	err      error
}

func (o *object) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), o.size-o.buf.Len())
		o.buf.Write(p[:k])
		p = p[k:]
		if o.buf.Len() == o.size {
			if o.err = o.sendPart(); o.err != nil {
				return 0, o.err
			}
		}
	}
	return n, nil
}

// sendPart uploads the buffered bytes as the next part.
func (o *object) sendPart() error {
	b, key := o.b, o.b.KeyPrefix+o.key
	if o.uploadID == nil {
		out, err := b.Client.CreateMultipartUpload(b.ctx(), &s3.CreateMultipartUploadInput{Bucket: &b.Name, Key: &key})
		if err != nil {
			return b.s3Error("CreateMultipartUpload", o.key, err)
		}
		o.uploadID = out.UploadId
	}
	n := int32(len(o.parts) + 1)
	out, err := b.Client.UploadPart(b.ctx(), &s3.UploadPartInput{Bucket: &b.Name, Key: &key, UploadId: o.uploadID,
		PartNumber: aws.Int32(n), Body: bytes.NewReader(o.buf.Bytes()), ContentLength: aws.Int64(int64(o.buf.Len()))})
	if err != nil {
		return b.s3Error("UploadPart", o.key, err)
	}
	o.parts = append(o.parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
	o.buf.Reset()
	return nil
}

// Close stores the object; after a failed Write it only abandons it.
func (o *object) Close() error {
	b, key := o.b, o.b.KeyPrefix+o.key
	if o.err == nil && o.uploadID == nil {
		_, err := b.Client.PutObject(b.ctx(), &s3.PutObjectInput{Bucket: &b.Name, Key: &key,
			Body: bytes.NewReader(o.buf.Bytes()), ContentLength: aws.Int64(int64(o.buf.Len()))})
		if err != nil {
			return b.s3Error("PutObject", o.key, err)
		}
		return nil
	}
	if o.err == nil && o.buf.Len() > 0 {
		o.err = o.sendPart()
	}
	if o.err == nil {
		_, err := b.Client.CompleteMultipartUpload(b.ctx(), &s3.CompleteMultipartUploadInput{Bucket: &b.Name, Key: &key,
			UploadId: o.uploadID, MultipartUpload: &types.CompletedMultipartUpload{Parts: o.parts}})
		if err == nil {
			return nil
		}
		o.err = b.s3Error("CompleteMultipartUpload", o.key, err)
	}
	if o.uploadID != nil {
		// Best effort: a bucket's lifecycle rule removes what this leaves.
		_, _ = b.Client.AbortMultipartUpload(b.ctx(), &s3.AbortMultipartUploadInput{Bucket: &b.Name, Key: &key, UploadId: o.uploadID})
	}
	return o.err
}

// List implements [fdyno.ImportSource] with ListObjectsV2 (S3 lists keys
// in byte order).
func (b *Bucket) List(prefix string) ([]string, error) {
	var keys []string
	in := &s3.ListObjectsV2Input{Bucket: &b.Name, Prefix: aws.String(b.KeyPrefix + prefix)}
	for {
		out, err := b.Client.ListObjectsV2(b.ctx(), in)
		if err != nil {
			return nil, b.s3Error("ListObjectsV2", prefix, err)
		}
		for _, o := range out.Contents {
			if o.Key == nil || len(*o.Key) < len(b.KeyPrefix) {
				continue
			}
			keys = append(keys, (*o.Key)[len(b.KeyPrefix):])
		}
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil {
			return keys, nil
		}
		in.ContinuationToken = out.NextContinuationToken
	}
}

// Open implements [fdyno.ImportSource] with GetObject.
func (b *Bucket) Open(key string) (io.ReadCloser, error) {
	out, err := b.Client.GetObject(b.ctx(), &s3.GetObjectInput{Bucket: &b.Name, Key: aws.String(b.KeyPrefix + key)})
	if err != nil {
		return nil, b.s3Error("GetObject", key, err)
	}
	return out.Body, nil
}

// Config is how to reach an S3 endpoint: fdyno-server's --s3-* flags.
type Config struct {
	// Endpoint is the service's URL, such as https://s3.us-east-1.amazonaws.com
	// or http://localhost:9000 for an S3-compatible store (empty: AWS's
	// endpoint of Region).
	Endpoint string
	// Region is the bucket's region (default us-east-1).
	Region string
	// AccessKeyID, SecretAccessKey and SessionToken are the credentials.
	AccessKeyID, SecretAccessKey, SessionToken string
	// PathStyle addresses buckets as Endpoint/bucket/key rather than
	// bucket.host/key (most S3-compatible stores want it).
	PathStyle bool
}

// NewClient returns an S3 client of c.
func NewClient(c Config) (*s3.Client, error) {
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return nil, fmt.Errorf("s3bucket: an access key ID and a secret access key are needed")
	}
	region := c.Region
	if region == "" {
		region = "us-east-1"
	}
	creds := aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken, Source: "s3bucket"}
	return s3.New(s3.Options{
		Region:      region,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
		BaseEndpoint: func() *string {
			if c.Endpoint == "" {
				return nil
			}
			return &c.Endpoint
		}(),
		UsePathStyle: c.PathStyle,
		// Checksums only when an operation requires them: S3-compatible
		// stores do not all know the SDK's newer ones.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}), nil
}
