package server

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/internal/testtime"
)

// TestSDKStreamReenabled: as in DynamoDB, a stream's label is the time it
// was created (for a stream enabled with the table, the table's creation
// time), and enabling a table's stream again creates a new stream, with
// a new label and ARN, whose records are only those written since; the
// old ARN is served, DISABLED, for 24 hours.
func TestSDKStreamReenabled(t *testing.T) {
	clock := testtime.NewClock(time.Now())
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1, Now: clock.Now})
	sc := ts.streamsClient()
	createStreamTable(t, c, "Again", types.StreamViewTypeNewImage)
	d, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Again")})
	if err != nil {
		t.Fatal(err)
	}
	first := aws.ToString(d.Table.LatestStreamArn)
	if want := d.Table.CreationDateTime.UTC().Format(fdyno.StreamLabelLayout); aws.ToString(d.Table.LatestStreamLabel) != want || !strings.HasSuffix(first, "/stream/"+want) {
		t.Errorf("stream of a new table: %s %s, want label %s (the creation time)", first, aws.ToString(d.Table.LatestStreamLabel), want)
	}
	put := func(pk string) {
		t.Helper()
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Again"), Item: avMap{"pk": s(pk)}}); err != nil {
			t.Fatal(err)
		}
	}
	put("old")
	stream := func(enabled bool, view types.StreamViewType) *dynamodb.UpdateTableOutput {
		t.Helper()
		out, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Again"),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(enabled), StreamViewType: view}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	stream(false, "")
	clock.Advance(time.Second)
	up := stream(true, types.StreamViewTypeKeysOnly)
	second := aws.ToString(up.TableDescription.LatestStreamArn)
	label := aws.ToString(up.TableDescription.LatestStreamLabel)
	at := clock.Now().UTC().Truncate(time.Millisecond) // labels keep milliseconds
	if want := at.Format(fdyno.StreamLabelLayout); second == first || label != want || !strings.HasSuffix(second, "/stream/"+label) {
		t.Errorf("re-enabled stream %s label %s, want a new ARN labelled with the time of the change, %s", second, label, want)
	}
	put("new")

	// The new stream holds only the records written since it began, from
	// TRIM_HORIZON or from a position before it.
	for _, it := range []*string{
		getIterator(t, sc, second, st.ShardIteratorTypeTrimHorizon, ""),
		getIterator(t, sc, second, st.ShardIteratorTypeAtSequenceNumber, "00000000000000000000000000001"),
	} {
		recs, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: it})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs.Records) != 1 || recs.Records[0].Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value != "new" {
			t.Errorf("records of the re-enabled stream: %+v, want the one written since", recs.Records)
		}
	}
	ds, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(second)})
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.StreamDescription; aws.ToString(got.StreamLabel) != label || got.CreationRequestDateTime == nil || !got.CreationRequestDateTime.Equal(at) || len(got.Shards) != 1 ||
		aws.ToString(got.Shards[0].SequenceNumberRange.StartingSequenceNumber) == strings.Repeat("0", seqDigits) {
		t.Errorf("DescribeStream of the re-enabled stream = %+v", got)
	}
	// The first stream is DISABLED, readable for 24 hours after it was
	// disabled (DynamoDB's "Disabling a stream";
	// streams_disabled_test.go follows it to its expiry).
	old, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	if err != nil || old.StreamDescription.StreamStatus != st.StreamStatusDisabled {
		t.Errorf("DescribeStream of the first stream: %+v, %v, want DISABLED", old, err)
	}
}
