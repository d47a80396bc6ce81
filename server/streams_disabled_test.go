package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	st "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// TestSDKStreamDisabled follows DynamoDB's "Disabling a stream": the
// disabled stream's data stays readable for 24 hours; DescribeStream
// reports StreamStatus DISABLED and its shard closed (an
// EndingSequenceNumber, the last record's); GetRecords reads up to that
// record and, at the end, returns no NextShardIterator. Re-enabling
// starts a new stream under a new ARN while the old one stays readable.
// 24 hours after the disabling, the old ARN answers
// ResourceNotFoundException. The server's clock is injected.
func TestSDKStreamDisabled(t *testing.T) {
	clock := testtime.NewClock(time.Now())
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1, StreamRetention: -1, CountBuildInterval: -1, Now: clock.Now})
	sc := ts.streamsClient()
	createStreamTable(t, c, "Closed", types.StreamViewTypeNewImage)
	put := func(pk string) {
		t.Helper()
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Closed"), Item: avMap{"pk": s(pk)}}); err != nil {
			t.Fatal(err)
		}
	}
	stream := func(enabled bool, view types.StreamViewType) {
		t.Helper()
		if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Closed"),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(enabled), StreamViewType: view}}); err != nil {
			t.Fatal(err)
		}
	}
	// pages reads from it until a page has no NextShardIterator, and
	// returns the keys read, page by page.
	pages := func(it *string, limit int32) [][]string {
		t.Helper()
		var out [][]string
		for range 10 {
			page, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(limit)})
			if err != nil {
				t.Fatalf("GetRecords: %v", err)
			}
			keys := []string{}
			for _, r := range page.Records {
				keys = append(keys, r.Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value)
			}
			out = append(out, keys)
			if page.NextShardIterator == nil {
				return out
			}
			it = page.NextShardIterator
		}
		t.Fatal("no page without NextShardIterator: the shard of a disabled stream must be closed")
		return nil
	}
	listed := func() []string {
		t.Helper()
		out, err := sc.ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{TableName: aws.String("Closed")})
		if err != nil {
			t.Fatal(err)
		}
		var arns []string
		for _, s := range out.Streams {
			arns = append(arns, aws.ToString(s.StreamArn))
		}
		return arns
	}

	first := ts.streamARN("Closed")
	put("a")
	put("b")
	all, _ := readAll(t, sc, getIterator(t, sc, first, st.ShardIteratorTypeTrimHorizon, ""), 1000)
	if len(all) != 2 {
		t.Fatalf("%d records before disabling, want 2", len(all))
	}
	last := aws.ToString(all[1].Dynamodb.SequenceNumber)
	open := getIterator(t, sc, first, st.ShardIteratorTypeTrimHorizon, "") // issued while enabled
	stream(false, "")
	put("c") // not recorded: the stream is disabled

	// Disabled: listed, DISABLED, its shard closed at its last record.
	if diff := cmp.Diff([]string{first}, listed()); diff != "" {
		t.Errorf("ListStreams after disabling (-want +got):\n%s", diff)
	}
	ds, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.StreamDescription; got.StreamStatus != st.StreamStatusDisabled || got.StreamViewType != st.StreamViewTypeNewImage ||
		len(got.Shards) != 1 || aws.ToString(got.Shards[0].SequenceNumberRange.EndingSequenceNumber) != last {
		t.Errorf("DescribeStream of the disabled stream = %+v, want DISABLED, NEW_IMAGE, one shard ending at %s", got, last)
	}
	tests := []struct {
		name  string
		it    *string
		limit int32
		want  [][]string
	}{
		{"TRIM_HORIZON", getIterator(t, sc, first, st.ShardIteratorTypeTrimHorizon, ""), 1000, [][]string{{"a", "b"}}},
		{"TRIM_HORIZON, Limit 1", getIterator(t, sc, first, st.ShardIteratorTypeTrimHorizon, ""), 1, [][]string{{"a"}, {"b"}}},
		{"issued while enabled", open, 1000, [][]string{{"a", "b"}}},
		{"LATEST", getIterator(t, sc, first, st.ShardIteratorTypeLatest, ""), 1000, [][]string{{}}},
		{"AFTER_SEQUENCE_NUMBER last", getIterator(t, sc, first, st.ShardIteratorTypeAfterSequenceNumber, last), 1000, [][]string{{}}},
		{"AT_SEQUENCE_NUMBER last", getIterator(t, sc, first, st.ShardIteratorTypeAtSequenceNumber, last), 1000, [][]string{{"b"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, pages(tc.it, tc.limit)); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
	// The stream trimmer leaves a disabled stream's records alone.
	ts.trimOnce(context.Background(), time.Nanosecond, time.Minute)
	if diff := cmp.Diff([][]string{{"a", "b"}}, pages(getIterator(t, sc, first, st.ShardIteratorTypeTrimHorizon, ""), 1000)); diff != "" {
		t.Errorf("after a trim (-want +got):\n%s", diff)
	}

	// Re-enabled: a new stream, the old one still readable, closed.
	clock.Advance(time.Second) // the new stream's label is a later time
	stream(true, types.StreamViewTypeKeysOnly)
	second := ts.streamARN("Closed")
	put("d")
	if second == first {
		t.Fatalf("re-enabled stream has the old ARN %s", first)
	}
	if diff := cmp.Diff([]string{first, second}, listed()); diff != "" {
		t.Errorf("ListStreams after re-enabling (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"a", "b"}}, pages(getIterator(t, sc, first, st.ShardIteratorTypeTrimHorizon, ""), 1000)); diff != "" {
		t.Errorf("old stream after re-enabling (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"a", "b"}}, pages(open, 1000)); diff != "" {
		t.Errorf("old iterator after re-enabling (-want +got):\n%s", diff)
	}
	recs, _ := readAll(t, sc, getIterator(t, sc, second, st.ShardIteratorTypeTrimHorizon, ""), 1000)
	if len(recs) != 1 || recs[0].Dynamodb.Keys["pk"].(*st.AttributeValueMemberS).Value != "d" {
		t.Errorf("new stream: %+v, want the one record written since", recs)
	}

	// 24 hours after the disabling, the old stream is gone; the new one
	// stays.
	clock.Advance(24*time.Hour - time.Minute)
	if d, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)}); err != nil || d.StreamDescription.StreamStatus != st.StreamStatusDisabled {
		t.Errorf("DescribeStream of the stream disabled 23h59m ago: %+v, %v, want DISABLED", d, err)
	}
	clock.Advance(time.Minute + time.Second)
	_, err = sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	var nf *st.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("DescribeStream of the expired stream: %v, want ResourceNotFoundException", err)
	}
	_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(first), ShardId: aws.String(shardID),
		ShardIteratorType: st.ShardIteratorTypeTrimHorizon})
	if !errors.As(err, &nf) {
		t.Errorf("GetShardIterator of the expired stream: %v, want ResourceNotFoundException", err)
	}
	if diff := cmp.Diff([]string{second}, listed()); diff != "" {
		t.Errorf("ListStreams a day later (-want +got):\n%s", diff)
	}
	if d, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(second)}); err != nil ||
		d.StreamDescription.StreamStatus != st.StreamStatusEnabled || d.StreamDescription.Shards[0].SequenceNumberRange.EndingSequenceNumber != nil {
		t.Errorf("DescribeStream of the current stream: %+v, %v, want ENABLED, open", d, err)
	}
}
