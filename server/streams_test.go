package server

import (
	"context"
	"fmt"
	"net/http"
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
	"github.com/google/go-cmp/cmp"
)

// SDK tests of the DynamoDB Streams API, stating what DynamoDB Streams'
// API reference says each operation returns.

// streamsClient returns an AWS SDK DynamoDB Streams client of ts, which
// does not retry.
func (ts *testServer) streamsClient() *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		BaseEndpoint: aws.String(ts.URL),
		Region:       "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return testCredentials, nil
		}),
		HTTPClient: &http.Client{Transport: bufferedBodies{ts.http.Client().Transport}},
		Retryer:    aws.NopRetryer{},
	})
}

// wireRecord is what a test compares of a Record: its event and
// StreamRecord fields, images as plain strings.
type wireRecord struct {
	EventName       string
	Keys, New, Old  map[string]string
	ViewType        string
	UserIdentityTyp string
}

func plain(m map[string]st.AttributeValue) map[string]string {
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		switch v := v.(type) {
		case *st.AttributeValueMemberS:
			out[k] = "S:" + v.Value
		case *st.AttributeValueMemberN:
			out[k] = "N:" + v.Value
		default:
			out[k] = "?"
		}
	}
	return out
}

// checker is what the stream helpers need of a *testing.T or *rapid.T.
type checker interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// readAll iterates GetRecords from iterator it until a page is empty,
// checking each record's envelope, and returns the records and the last
// NextShardIterator.
func readAll(t checker, sc *dynamodbstreams.Client, it *string, limit int32) ([]st.Record, *string) {
	t.Helper()
	var recs []st.Record
	for range 100 {
		out, err := sc.GetRecords(context.Background(), &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(limit)})
		if err != nil {
			t.Fatalf("GetRecords: %v", err)
		}
		if out.NextShardIterator == nil {
			t.Fatal("NextShardIterator is nil: the shard of an enabled stream is never closed")
		}
		it = out.NextShardIterator
		if len(out.Records) > int(limit) {
			t.Fatalf("%d records, Limit %d", len(out.Records), limit)
		}
		if len(out.Records) == 0 {
			return recs, it
		}
		recs = append(recs, out.Records...)
	}
	t.Fatal("GetRecords did not reach the end")
	return nil, nil
}

func toWire(t checker, recs []st.Record) []wireRecord {
	t.Helper()
	var out []wireRecord
	prev := ""
	for _, r := range recs {
		if aws.ToString(r.EventVersion) != "1.1" || aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.AwsRegion) != "us-east-1" || len(aws.ToString(r.EventID)) == 0 {
			t.Errorf("record envelope %+v", r)
		}
		d := r.Dynamodb
		seq := aws.ToString(d.SequenceNumber)
		if len(seq) < 21 || len(seq) > 40 || seq <= prev {
			t.Errorf("SequenceNumber %q after %q: want 21–40 digits, increasing", seq, prev)
		}
		prev = seq
		if d.ApproximateCreationDateTime == nil || time.Since(*d.ApproximateCreationDateTime) > time.Minute || aws.ToInt64(d.SizeBytes) <= 0 {
			t.Errorf("record %s: ApproximateCreationDateTime %v, SizeBytes %v", seq, d.ApproximateCreationDateTime, d.SizeBytes)
		}
		w := wireRecord{EventName: string(r.EventName), Keys: plain(d.Keys), New: plain(d.NewImage), Old: plain(d.OldImage), ViewType: string(d.StreamViewType)}
		if r.UserIdentity != nil {
			w.UserIdentityTyp = aws.ToString(r.UserIdentity.Type) + "/" + aws.ToString(r.UserIdentity.PrincipalId)
		}
		out = append(out, w)
	}
	return out
}

func getIterator(t checker, sc *dynamodbstreams.Client, arn string, typ st.ShardIteratorType, seq string) *string {
	t.Helper()
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shardID), ShardIteratorType: typ}
	if seq != "" {
		in.SequenceNumber = aws.String(seq)
	}
	out, err := sc.GetShardIterator(context.Background(), in)
	if err != nil {
		t.Fatalf("GetShardIterator %s: %v", typ, err)
	}
	return out.ShardIterator
}

// TestSDKStreams: a stream enabled by CreateTable (NEW_AND_OLD_IMAGES)
// and one enabled by UpdateTable (KEYS_ONLY) record puts, updates,
// deletes and a TransactWriteItems in order; ListStreams and
// DescribeStream describe them; GetRecords from TRIM_HORIZON returns
// DynamoDB Streams' records; LATEST sees only later writes;
// AFTER_SEQUENCE_NUMBER and AT_SEQUENCE_NUMBER resume exactly.
func TestSDKStreams(t *testing.T) {
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1})
	sc := ts.streamsClient()
	createStreamTable(t, c, "Images", types.StreamViewTypeNewAndOldImages)
	createTable(t, c, "Keys", "", "")
	createTable(t, c, "NoStream", "", "")
	// A stream enabled at creation is labelled with the table's creation
	// time, one enabled later with the time it was enabled.
	imagesARN := ts.streamARN("Images")
	if !wellFormedStreamARN(imagesARN) || !strings.HasPrefix(imagesARN, "arn:aws:dynamodb:us-east-1:000000000000:table/Images/stream/") {
		t.Fatalf("Images stream ARN %q", imagesARN)
	}
	labelOf := func(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }

	// A write before the stream is enabled is not recorded.
	put := func(table, pk, v string) {
		t.Helper()
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: avMap{"pk": s(pk), "v": n(v)}}); err != nil {
			t.Fatal(err)
		}
	}
	put("Keys", "before", "0")
	up, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Keys"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	if err != nil {
		t.Fatal(err)
	}
	keysARN := aws.ToString(up.TableDescription.LatestStreamArn)
	if !wellFormedStreamARN(keysARN) || !strings.HasPrefix(keysARN, "arn:aws:dynamodb:us-east-1:000000000000:table/Keys/stream/") ||
		aws.ToString(up.TableDescription.LatestStreamLabel) != labelOf(keysARN) ||
		up.TableDescription.StreamSpecification == nil || up.TableDescription.StreamSpecification.StreamViewType != types.StreamViewTypeKeysOnly {
		t.Errorf("UpdateTable description: LatestStreamArn %v, LatestStreamLabel %v, StreamSpecification %+v",
			aws.ToString(up.TableDescription.LatestStreamArn), aws.ToString(up.TableDescription.LatestStreamLabel), up.TableDescription.StreamSpecification)
	}
	// Changing the view type of an enabled stream is refused, as in DynamoDB.
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Keys"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}})
	wantAPIError(t, err, "ValidationException", "Table already has an enabled stream: TableName: Keys")
	_, err = c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("NoStream"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	wantAPIError(t, err, "ValidationException", "stream")

	// The writes.
	for _, tbl := range []string{"Images", "Keys"} {
		put(tbl, "a", "1")
		put(tbl, "a", "1") // no change: no record
		if _, err := c.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(tbl), Key: avMap{"pk": s("a")},
			UpdateExpression: aws.String("SET v = v + :one"), ExpressionAttributeValues: avMap{":one": n("1")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TransactWriteItems(ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(tbl), Item: avMap{"pk": s("b"), "v": n("5")}}},
			{Delete: &types.Delete{TableName: aws.String(tbl), Key: avMap{"pk": s("a")}}},
		}}); err != nil {
			t.Fatal(err)
		}
	}

	// ListStreams and DescribeStream.
	ls, err := sc.ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ls.Streams {
		got = append(got, aws.ToString(s.TableName)+" "+aws.ToString(s.StreamArn)+" "+aws.ToString(s.StreamLabel))
	}
	if diff := cmp.Diff([]string{"Images " + imagesARN + " " + labelOf(imagesARN), "Keys " + keysARN + " " + labelOf(keysARN)}, got); diff != "" {
		t.Errorf("ListStreams (-want +got):\n%s", diff)
	}
	ls, err = sc.ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(1)})
	if err != nil || len(ls.Streams) != 1 || aws.ToString(ls.LastEvaluatedStreamArn) != imagesARN {
		t.Fatalf("ListStreams Limit 1 = %+v, %v", ls, err)
	}
	ls, err = sc.ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(1), ExclusiveStartStreamArn: ls.LastEvaluatedStreamArn})
	if err != nil || len(ls.Streams) != 1 || aws.ToString(ls.Streams[0].StreamArn) != keysARN || ls.LastEvaluatedStreamArn != nil {
		t.Fatalf("ListStreams second page = %+v, %v", ls, err)
	}
	ls, err = sc.ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{TableName: aws.String("NoStream")})
	if err != nil || len(ls.Streams) != 0 {
		t.Fatalf("ListStreams NoStream = %+v, %v", ls, err)
	}
	ds, err := sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(keysARN)})
	if err != nil {
		t.Fatal(err)
	}
	d := ds.StreamDescription
	if aws.ToString(d.StreamArn) != keysARN || d.StreamStatus != st.StreamStatusEnabled || d.StreamViewType != st.StreamViewTypeKeysOnly ||
		aws.ToString(d.TableName) != "Keys" || len(d.KeySchema) != 1 || aws.ToString(d.KeySchema[0].AttributeName) != "pk" ||
		len(d.Shards) != 1 || aws.ToString(d.Shards[0].ShardId) != shardID || d.Shards[0].SequenceNumberRange == nil ||
		d.Shards[0].SequenceNumberRange.EndingSequenceNumber != nil {
		t.Errorf("DescribeStream = %+v", d)
	}
	_, err = sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/NoStream/stream/" + streamLabel)})
	wantAPIError(t, err, "ResourceNotFoundException", "NoStream")

	// GetRecords from TRIM_HORIZON, in pages of 2.
	a := func(v string) map[string]string { return map[string]string{"pk": "S:a", "v": "N:" + v} }
	wantImages := []wireRecord{
		{EventName: "INSERT", Keys: map[string]string{"pk": "S:a"}, New: a("1"), ViewType: "NEW_AND_OLD_IMAGES"},
		{EventName: "MODIFY", Keys: map[string]string{"pk": "S:a"}, New: a("2"), Old: a("1"), ViewType: "NEW_AND_OLD_IMAGES"},
		{EventName: "INSERT", Keys: map[string]string{"pk": "S:b"}, New: map[string]string{"pk": "S:b", "v": "N:5"}, ViewType: "NEW_AND_OLD_IMAGES"},
		{EventName: "REMOVE", Keys: map[string]string{"pk": "S:a"}, Old: a("2"), ViewType: "NEW_AND_OLD_IMAGES"},
	}
	recs, _ := readAll(t, sc, getIterator(t, sc, imagesARN, st.ShardIteratorTypeTrimHorizon, ""), 2)
	if diff := cmp.Diff(wantImages, toWire(t, recs)); diff != "" {
		t.Errorf("Images records (-want +got):\n%s", diff)
	}
	wantKeys := []wireRecord{
		{EventName: "INSERT", Keys: map[string]string{"pk": "S:a"}, ViewType: "KEYS_ONLY"},
		{EventName: "MODIFY", Keys: map[string]string{"pk": "S:a"}, ViewType: "KEYS_ONLY"},
		{EventName: "INSERT", Keys: map[string]string{"pk": "S:b"}, ViewType: "KEYS_ONLY"},
		{EventName: "REMOVE", Keys: map[string]string{"pk": "S:a"}, ViewType: "KEYS_ONLY"},
	}
	keyRecs, tail := readAll(t, sc, getIterator(t, sc, keysARN, st.ShardIteratorTypeTrimHorizon, ""), 1000)
	if diff := cmp.Diff(wantKeys, toWire(t, keyRecs)); diff != "" {
		t.Errorf("Keys records (-want +got):\n%s", diff)
	}

	// AFTER_SEQUENCE_NUMBER and AT_SEQUENCE_NUMBER resume exactly.
	second := aws.ToString(recs[1].Dynamodb.SequenceNumber)
	after, _ := readAll(t, sc, getIterator(t, sc, imagesARN, st.ShardIteratorTypeAfterSequenceNumber, second), 1000)
	if diff := cmp.Diff(wantImages[2:], toWire(t, after)); diff != "" {
		t.Errorf("AFTER_SEQUENCE_NUMBER %s (-want +got):\n%s", second, diff)
	}
	at, _ := readAll(t, sc, getIterator(t, sc, imagesARN, st.ShardIteratorTypeAtSequenceNumber, second), 1000)
	if diff := cmp.Diff(wantImages[1:], toWire(t, at)); diff != "" {
		t.Errorf("AT_SEQUENCE_NUMBER %s (-want +got):\n%s", second, diff)
	}

	// LATEST sees only later writes; so does the NextShardIterator of the
	// end of the stream.
	latest := getIterator(t, sc, keysARN, st.ShardIteratorTypeLatest, "")
	put("Keys", "c", "1")
	later, _ := readAll(t, sc, latest, 1000)
	wantLater := []wireRecord{{EventName: "INSERT", Keys: map[string]string{"pk": "S:c"}, ViewType: "KEYS_ONLY"}}
	if diff := cmp.Diff(wantLater, toWire(t, later)); diff != "" {
		t.Errorf("LATEST (-want +got):\n%s", diff)
	}
	fromTail, _ := readAll(t, sc, tail, 1000)
	if diff := cmp.Diff(wantLater, toWire(t, fromTail)); diff != "" {
		t.Errorf("NextShardIterator at the end (-want +got):\n%s", diff)
	}

	// A disabled stream stays readable for 24 hours, its shard closed
	// (DynamoDB's "Disabling a stream"; streams_disabled_test.go): an
	// iterator issued while it was enabled reads up to its last record,
	// and then has no NextShardIterator.
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Keys"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	closed, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: tail})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantLater, toWire(t, closed.Records)); diff != "" || closed.NextShardIterator != nil {
		t.Errorf("GetRecords of the disabled stream: NextShardIterator %v (-want +got):\n%s", closed.NextShardIterator, diff)
	}
	dt, err := c.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String("Keys")})
	if err != nil || dt.Table.LatestStreamArn != nil || dt.Table.StreamSpecification != nil {
		t.Errorf("DescribeTable after disabling: %+v, %v", dt, err)
	}
}

// TestSDKStreamsErrors: bad iterators, sequence numbers, shards, Limits
// and ARNs answer DynamoDB Streams' errors.
func TestSDKStreamsErrors(t *testing.T) {
	clock := testtime.NewClock(time.Now())
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1, Now: clock.Now})
	sc := ts.streamsClient()
	createStreamTable(t, c, "Errs", types.StreamViewTypeKeysOnly)
	arn := ts.streamARN("Errs")
	label := arn[strings.LastIndex(arn, "/")+1:]
	it := getIterator(t, sc, arn, st.ShardIteratorTypeTrimHorizon, "")

	// Tampered: any changed character of the token is refused.
	tok := aws.ToString(it)
	for _, i := range []int{0, len(tok) / 2, len(tok) - 1} {
		b := []byte(tok)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		_, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(string(b))})
		wantAPIError(t, err, "ValidationException", "Invalid ShardIterator")
	}
	_, err := sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("not an iterator")})
	wantAPIError(t, err, "ValidationException", "Invalid ShardIterator")
	_, err = sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(1001)})
	wantAPIError(t, err, "ValidationException", "Member must have value between 1 and 1000")
	_, err = sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(0)})
	wantAPIError(t, err, "ValidationException", "Member must have value between 1 and 1000")

	// Another server (another key) refuses the token.
	other := newTestServer(t, Config{TTLSweepInterval: -1})
	_, err = other.streamsClient().GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	wantAPIError(t, err, "ValidationException", "Invalid ShardIterator")

	// Bad GetShardIterator requests.
	_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String("shardId-00000000000000000002-00000000"), ShardIteratorType: st.ShardIteratorTypeLatest})
	wantAPIError(t, err, "ResourceNotFoundException", "Shard does not exist")
	_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shardID), ShardIteratorType: st.ShardIteratorTypeAfterSequenceNumber})
	wantAPIError(t, err, "ValidationException", "SequenceNumber")
	_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shardID), ShardIteratorType: st.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String("12x")})
	wantAPIError(t, err, "ValidationException", "Invalid SequenceNumber")
	_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shardID), ShardIteratorType: "SOMEWHERE"})
	wantAPIError(t, err, "ValidationException", "enum value set")
	_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(strings.Replace(arn, "Errs", "Nope", 1)), ShardId: aws.String(shardID), ShardIteratorType: st.ShardIteratorTypeLatest})
	wantAPIError(t, err, "ResourceNotFoundException", "Nope")
	_, err = sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(strings.Replace(arn, label, "2020-01-01T00:00:00.000", 1))})
	wantAPIError(t, err, "ResourceNotFoundException", "not found")
	_, err = sc.ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "Nope")
	// A StreamArn that is not an ARN of a stream's form is a
	// ValidationException, not a missing stream.
	for _, bad := range []string{
		"not-an-arn-but-long-enough-for-the-length-check",
		strings.Replace(arn, "/stream/", "/streams/", 1),
		strings.Replace(arn, label, "yesterday-at-noon-o-clock", 1),
		strings.Replace(arn, "000000000000", "12345", 1),
		strings.Replace(arn, ":dynamodb:", ":s3:", 1),
	} {
		_, err = sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(bad)})
		wantAPIErrorExact(t, err, "ValidationException", "Invalid StreamArn")
		_, err = sc.GetShardIterator(ctx(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(bad), ShardId: aws.String(shardID), ShardIteratorType: st.ShardIteratorTypeLatest})
		wantAPIErrorExact(t, err, "ValidationException", "Invalid StreamArn")
	}
	// Well formed, of another account: no such stream here.
	_, err = sc.DescribeStream(ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(strings.Replace(arn, "000000000000", "123456789012", 1))})
	wantAPIError(t, err, "ResourceNotFoundException", "not found")

	// Expired after 15 minutes.
	clock.Advance(iteratorLifetime)
	_, err = sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	wantAPIError(t, err, "ExpiredIteratorException", "Iterator expired")
}

// TestSDKStreamsTTLAndTrim: a Time to Live deletion's record carries
// DynamoDB's service userIdentity; an iterator positioned before records
// that were trimmed answers TrimmedDataAccessException, and TRIM_HORIZON
// then starts at the oldest record kept.
func TestSDKStreamsTTLAndTrim(t *testing.T) {
	ts, c := newTestClient(t, Config{TTLSweepInterval: -1})
	sc := ts.streamsClient()
	createTable(t, c, "Expiring", "", "")
	if _, err := c.UpdateTable(ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String("Expiring"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeOldImage}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTimeToLive(ctx(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Expiring"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	past := n(fmt.Sprint(time.Now().Add(-time.Hour).Unix()))
	for _, pk := range []string{"a", "b", "c"} {
		if _, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String("Expiring"), Item: avMap{"pk": s(pk), "exp": past}}); err != nil {
			t.Fatal(err)
		}
	}
	tbl, err := ts.openTable("Expiring")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.SweepExpiredOnce(context.Background(), ts.db.DB, fdyno.SweepOptions{}); err != nil {
		t.Fatal(err)
	}
	arn := ts.streamARN("Expiring")
	recs, _ := readAll(t, sc, getIterator(t, sc, arn, st.ShardIteratorTypeTrimHorizon, ""), 1000)
	got := toWire(t, recs)
	if len(got) != 6 {
		t.Fatalf("%d records, want 3 INSERTs and 3 REMOVEs: %+v", len(got), got)
	}
	for i, r := range got {
		wantEvent, wantID := "INSERT", ""
		if i >= 3 {
			wantEvent, wantID = "REMOVE", "Service/dynamodb.amazonaws.com"
		}
		if r.EventName != wantEvent || r.UserIdentityTyp != wantID || (i >= 3) != (r.Old != nil) || r.New != nil {
			t.Errorf("record %d = %+v, want %s with userIdentity %q", i, r, wantEvent, wantID)
		}
	}

	// Trim all but the last two records.
	if _, err := tbl.TrimStream(context.Background(), ts.db.DB, fdyno.TrimStreamInput{KeepLast: 2}); err != nil {
		t.Fatal(err)
	}
	first := aws.ToString(recs[0].Dynamodb.SequenceNumber)
	stale := getIterator(t, sc, arn, st.ShardIteratorTypeAfterSequenceNumber, first)
	_, err = sc.GetRecords(ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: stale})
	wantAPIError(t, err, "TrimmedDataAccessException", "trimmed")
	kept, _ := readAll(t, sc, getIterator(t, sc, arn, st.ShardIteratorTypeTrimHorizon, ""), 1000)
	if len(kept) != 2 || aws.ToString(kept[0].Dynamodb.SequenceNumber) != aws.ToString(recs[4].Dynamodb.SequenceNumber) {
		t.Errorf("after the trim, TRIM_HORIZON reads %d records, want the last 2", len(kept))
	}
}

// With access keys, the DynamoDB Streams client's SigV4 signatures (made
// for the service name "dynamodb", as DynamoDB Streams signs) are accepted.
func TestSDKStreamsSigV4(t *testing.T) {
	ts := newTestServer(t, Config{TTLSweepInterval: -1, Keys: map[string]string{testCredentials.AccessKeyID: testCredentials.SecretAccessKey}})
	if _, err := ts.streamsClient().ListStreams(ctx(t), &dynamodbstreams.ListStreamsInput{}); err != nil {
		t.Fatalf("ListStreams signed with a known key: %v", err)
	}
	status, name, _ := ts.post(t, streamsTargetPrefix+"ListStreams", contentType, strings.NewReader(`{}`))
	if status != http.StatusBadRequest || name != "MissingAuthenticationTokenException" {
		t.Errorf("unsigned ListStreams: %d %s, want 400 MissingAuthenticationTokenException", status, name)
	}
}
