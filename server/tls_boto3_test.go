package server

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// boto3Script creates a table, writes and reads an item over HTTPS,
// trusting only the test's certificate (verify=<ca file>), and prints
// the item's value.
const boto3Script = `
import sys, boto3
from botocore.config import Config
c = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
                 aws_access_key_id="AKIDTEST", aws_secret_access_key="test-secret",
                 verify=sys.argv[2])
c.create_table(TableName="Python", BillingMode="PAY_PER_REQUEST",
               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
c.put_item(TableName="Python", Item={"pk": {"S": "a"}, "v": {"S": "boto3 over TLS"}})
print(c.get_item(TableName="Python", Key={"pk": {"S": "a"}})["Item"]["v"]["S"])
try:
    boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1",
                 aws_access_key_id="x", aws_secret_access_key="y",
                 config=Config(retries={"total_max_attempts": 1})).list_tables()
    print("untrusted certificate accepted")
except Exception as e:
    print("untrusted:", type(e).__name__)
`

// boto3 (Python's AWS SDK) works against the server over HTTPS. It needs
// a Python 3 with boto3 (Debian's python3-boto3). `make test` and `make
// test-boto3` install it when missing and set FDYNO_REQUIRE_BOTO3=1,
// which turns its absence into a failure; a bare `go test` without boto3
// skips the test and says so.
func TestTLSWithBoto3(t *testing.T) {
	python := boto3Python(t)
	ts := newTestServer(t, Config{})
	certFile, _, _ := selfSigned(t, t.TempDir())
	url := serveTLSFiles(t, ts, certFile)
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(c, python, "-c", boto3Script, url, certFile)
	cmd.Env = append(os.Environ(), "AWS_CONFIG_FILE="+filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(t.TempDir(), "none"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boto3: %v\n%s", err, out)
	}
	want := "boto3 over TLS\nuntrusted: SSLError\n"
	if string(out) != want {
		t.Errorf("boto3 printed %q, want %q", out, want)
	}
	if !strings.Contains(ts.logs.String(), `"op":"PutItem"`) {
		t.Error("the server logged no PutItem")
	}
}

// boto3Python returns a python3 that can import boto3, or skips t when
// there is none; with FDYNO_REQUIRE_BOTO3=1 (make test) it fails t
// instead.
func boto3Python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import boto3").Run() == nil {
			return path
		}
	}
	if os.Getenv("FDYNO_REQUIRE_BOTO3") == "1" {
		t.Fatal("no python3 with boto3, and FDYNO_REQUIRE_BOTO3=1")
	}
	t.Skip("no python3 with boto3 (apt-get install python3-boto3, or make test-boto3)")
	return ""
}

// runBoto3 runs script with python against ts, the server's URL as
// sys.argv[1] and input on its standard input, with no AWS configuration
// of the machine, and returns its standard output.
func runBoto3(t *testing.T, python, script, url string, input []byte) []byte {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(c, python, "-c", script, url)
	cmd.Env = append(os.Environ(), "AWS_CONFIG_FILE="+filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(t.TempDir(), "none"))
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("boto3: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	return out
}
