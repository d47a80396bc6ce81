package main

import (
	"strings"
	"testing"
)

// --s3-endpoint needs the FDYNO_S3_* credentials and excludes
// --export-dir; without it the buckets are directories.
func TestS3Flags(t *testing.T) {
	t.Setenv("FDYNO_S3_ACCESS_KEY_ID", "")
	t.Setenv("FDYNO_S3_SECRET_ACCESS_KEY", "")
	if c, err := s3Client("", "", "us-east-1", false, "/tmp/x"); c != nil || err != nil {
		t.Errorf("no --s3-endpoint: %v, %v; want no client", c, err)
	}
	if _, err := s3Client("http://127.0.0.1:9000", "", "us-east-1", true, ""); err == nil || !strings.Contains(err.Error(), "FDYNO_S3_ACCESS_KEY_ID") {
		t.Errorf("no credentials: %v", err)
	}
	t.Setenv("FDYNO_S3_ACCESS_KEY_ID", "AKID")
	t.Setenv("FDYNO_S3_SECRET_ACCESS_KEY", "secret")
	if _, err := s3Client("http://127.0.0.1:9000", "", "us-east-1", true, "/tmp/x"); err == nil || !strings.Contains(err.Error(), "--export-dir") {
		t.Errorf("--s3-endpoint with --export-dir: %v", err)
	}
	c, err := s3Client("http://127.0.0.1:9000", "", "eu-west-1", true, "")
	if err != nil || c == nil {
		t.Fatalf("--s3-endpoint with credentials: %v, %v", c, err)
	}
	if o := c.Options(); o.Region != "eu-west-1" || !o.UsePathStyle || *o.BaseEndpoint != "http://127.0.0.1:9000" {
		t.Errorf("client options: region %q, path style %v, endpoint %q", o.Region, o.UsePathStyle, *o.BaseEndpoint)
	}
}
