package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func sdkClient(addr, key, secret, region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String("http://" + addr),
		Region:       region,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
		}),
		Retryer: aws.NopRetryer{},
	})
}

func sdkTables(t *testing.T, c *dynamodb.Client) []string {
	t.Helper()
	cx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.ListTables(cx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableNames
}

// The migration path: tables made with --shared-db (the layout of every
// data directory from before accounts) are not any key's by default, but
// stay reachable by unsigned requests, by --shared-db, and by a key the
// key file puts in the default account 000000000000; a start-up warning
// says so.
func TestSharedDBMigration(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	stop := func(cmd interface{ Wait() error }, p *os.Process) {
		_ = p.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	cmd, addr, _ := startServer(t, "--data-dir", dir, "--shared-db")
	c := sdkClient(addr, "AKIDA", "s", "us-east-1")
	cx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CreateTable(cx, &dynamodb.CreateTableInput{TableName: aws.String("Legacy"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}}); err != nil {
		t.Fatal(err)
	}
	if got := sdkTables(t, sdkClient(addr, "AKIDB", "s", "eu-west-1")); !slices.Equal(got, []string{"Legacy"}) {
		t.Errorf("--shared-db: another key in another region lists %v", got)
	}
	stop(cmd, cmd.Process)

	cmd, addr, logs := startServer(t, "--data-dir", dir)
	if got := sdkTables(t, sdkClient(addr, "AKIDA", "s", "us-east-1")); len(got) != 0 {
		t.Errorf("per-account default: AKIDA lists %v, want none", got)
	}
	if status, body := call(t, addr, "ListTables", `{}`); status != 200 || !strings.Contains(body, `"Legacy"`) {
		t.Errorf("unsigned ListTables: %d %s", status, body)
	}
	stop(cmd, cmd.Process)
	if log := <-logs; !strings.Contains(log, "the shared namespace holds tables") {
		t.Errorf("no migration warning in the log:\n%s", log)
	}

	keys := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keys, []byte("AKIDA secret-a 000000000000\nAKIDB secret-b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr, _ = startServer(t, "--data-dir", dir, "--auth", keys)
	if got := sdkTables(t, sdkClient(addr, "AKIDA", "secret-a", "us-east-1")); !slices.Equal(got, []string{"Legacy"}) {
		t.Errorf("key of account 000000000000: lists %v, want [Legacy]", got)
	}
	if got := sdkTables(t, sdkClient(addr, "AKIDB", "secret-b", "us-east-1")); len(got) != 0 {
		t.Errorf("key of another account: lists %v, want none", got)
	}
}

// --policies takes a policy file (and needs --auth); one that does not
// parse stops the server at start, never serving "allow all".
func TestPoliciesFlag(t *testing.T) {
	dir := t.TempDir()
	keys, good, bad := filepath.Join(dir, "keys"), filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(keys, []byte("AKIDA secret-a 123456789012\n"), 0o600)
	os.WriteFile(good, []byte(`{"AKIDA":{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:List*","Resource":"*"}}}`), 0o600)
	os.WriteFile(bad, []byte(`{"AKIDA":{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"2030-01-01"}}}}}`), 0o600)
	_, addr, _ := startServer(t, "--auth", keys, "--policies", good)
	c := sdkClient(addr, "AKIDA", "secret-a", "us-east-1")
	if got := sdkTables(t, c); len(got) != 0 {
		t.Errorf("ListTables = %v", got)
	}
	cx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.DescribeTable(cx, &dynamodb.DescribeTableInput{TableName: aws.String("T1")}); err == nil || !strings.Contains(err.Error(), "AccessDeniedException") {
		t.Errorf("DescribeTable without a policy allowing it: %v", err)
	}
	for _, args := range [][]string{{"--auth", keys, "--policies", bad}, {"--policies", good}} {
		cmd := exec.Command(os.Args[0], append(args, "--in-memory")...)
		cmd.Env = append(os.Environ(), "FDYNO_SERVER_MAIN=1")
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("fdyno-server %v succeeded: %s", args, out)
		}
	}
}
