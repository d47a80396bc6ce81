package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/google/go-cmp/cmp"
)

// A table stored before the settings record existed kept the server's
// settings among the library's table properties; the library hands them
// over as the settings record (table_meta.go), and the server serves
// them as it did: billing and throughputs described, tags listed,
// deletion protection enforced, and kept when a setting changes. The
// tables are the library's golden samples of the formats that kept
// settings (testdata/meta), their index build dropped (the server would
// resume it).
func TestLegacySettingsServed(t *testing.T) {
	for _, file := range []string{"1-properties.json", "2-point-in-time-recovery.json", "2-disabled-streams.json"} {
		t.Run(file, func(t *testing.T) {
			db := fdblitetest.OpenIsolated(t)
			root := []string{"legacy"}
			raw, err := os.ReadFile(filepath.Join("..", "testdata", "meta", file))
			if err != nil {
				t.Fatal(err)
			}
			var golden map[string]json.RawMessage
			if err := json.Unmarshal(raw, &golden); err != nil {
				t.Fatal(err)
			}
			delete(golden, "Building")
			var schema fdyno.TableSchema
			if err := json.Unmarshal(golden["Schema"], &schema); err != nil {
				t.Fatal(err)
			}
			if _, err := fdyno.Open(db, "Music", fdyno.WithRoot(root...), fdyno.WithSchema(schema)); err != nil {
				t.Fatal(err)
			}
			meta, err := json.Marshal(golden)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Transact(func(tr fdb.Transaction) (any, error) {
				dir, err := directory.Open(tr, append(root, "Music"), nil)
				if err != nil {
					return nil, err
				}
				tr.Set(dir.Pack(tuple.Tuple{"m"}), meta) // the metadata key (keys.go)
				return nil, nil
			}); err != nil {
				t.Fatal(err)
			}

			ts, c := newTestClient(t, Config{DB: db, Root: root, TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1})
			mode, pt, gsis := describeThroughput(t, c, "Music")
			if mode != "PROVISIONED" || pt != [2]int64{5, 6} || !cmp.Equal(gsis, map[string][2]int64{"byG": {1, 2}, "byK": {3, 4}}) {
				t.Errorf("DescribeTable: %s %v %v; want PROVISIONED [5 6] byG [1 2] byK [3 4] as stored", mode, pt, gsis)
			}
			arn := ts.tableARN("Music")
			wantTags := []string{"env=prod", "team=catalog"}
			if got := tagStrings(t, c, arn); !cmp.Equal(got, wantTags) {
				t.Errorf("tags %v, want %v as stored", got, wantTags)
			}
			_, err = c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Music")})
			wantAPIError(t, err, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")

			// Changing one setting stores them all as the settings record.
			if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Music"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{{Key: aws.String("new"), Value: aws.String("1")}}}); err != nil {
				t.Fatal(err)
			}
			if mode2, pt2, gsis2 := describeThroughput(t, c, "Music"); mode2 != mode || pt2 != pt || !cmp.Equal(gsis2, gsis) {
				t.Errorf("after UpdateTable: %s %v %v, want %s %v %v", mode2, pt2, gsis2, mode, pt, gsis)
			}
			if got := tagStrings(t, c, arn); !cmp.Equal(got, []string{"env=prod", "new=1", "team=catalog"}) {
				t.Errorf("tags after TagResource: %v", got)
			}
			if _, err := c.DeleteTable(ctx(t), &dynamodb.DeleteTableInput{TableName: aws.String("Music")}); err != nil {
				t.Errorf("DeleteTable without protection: %v", err)
			}
		})
	}
}

// tagStrings returns the tags of the resource arn as key=value.
func tagStrings(t *testing.T, c *dynamodb.Client, arn string) []string {
	t.Helper()
	tags, err := listAllTags(t, c, arn)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tg := range tags {
		out = append(out, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
	}
	return out
}
