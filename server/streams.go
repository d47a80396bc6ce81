package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/internal/avjson"
)

// streams.go: the DynamoDB Streams API (X-Amz-Target
// DynamoDBStreams_20120810.*) served from fdyno's change stream.
//
// Mapping. A table with an enabled stream has one DynamoDB stream, whose
// ARN is the table's ARN + "/stream/" + streamLabel, and one DynamoDB
// shard, shardID, which is never closed while the stream is enabled:
// fdyno merges its internal stream shards into one total order by
// sequence number (the library's GetRecords), so one DynamoDB shard
// carries every record in order. A stream's label is the time it began:
// the table's creation time for a stream enabled with the table, the time
// of the UpdateTable that enabled it otherwise (a table created before
// fdyno kept creation times has a fixed label). As in DynamoDB, enabling
// a stream again starts a new stream, with a new label and ARN, whose
// records are those written since (the library records where it began,
// TableDescription.StreamStartAfter). As in DynamoDB, a disabled stream
// stays listed and readable under its own ARN for 24 hours after the
// disabling (the server's clock), DISABLED, its shard closed: it has an
// EndingSequenceNumber (the last record's sequence number, which the
// library notes when it disables the stream, TableDescription.
// DisabledStreams), and GetRecords at its end returns no
// NextShardIterator. Later, its ARN answers ResourceNotFoundException.
//
// Shard iterators are opaque tokens: base64 of the table name, the
// position (after a sequence number, or the start) and an expiry 15
// minutes after issue, authenticated with an HMAC under a key the server
// draws at start. A token that does not decode or verify is a
// ValidationException; an expired one an ExpiredIteratorException. A
// token is valid only on the server process that issued it.

const (
	// streamsTargetPrefix starts the X-Amz-Target of the streams API.
	streamsTargetPrefix = "DynamoDBStreams_20120810."
	// streamLabel is the label of the stream of a table that has no
	// creation time (DynamoDB's is the stream's creation time in this
	// form).
	streamLabel = "1970-01-01T00:00:00.000"
	// shardID is the one shard of every stream, in DynamoDB's form.
	shardID = "shardId-00000000000000000001-00000000"
	// iteratorLifetime is how long a shard iterator is valid (DynamoDB's
	// 15 minutes).
	iteratorLifetime = 15 * time.Minute
	// maxListStreamsLimit and maxDescribeStreamLimit are the largest
	// Limits of ListStreams and DescribeStream.
	maxListStreamsLimit    = 100
	maxDescribeStreamLimit = 100
	// seqDigits is the length of fdyno's sequence numbers.
	seqDigits = 29
	// iteratorMACLen is the length of an iterator's truncated HMAC.
	iteratorMACLen = 16
	// maxIteratorLen is DynamoDB's longest ShardIterator.
	maxIteratorLen = 2048
)

// Errors of the streams API.
var (
	errExpiredIterator = errType{nsDynamoDB + "ExpiredIteratorException", http.StatusBadRequest}
	errTrimmedData     = errType{nsDynamoDB + "TrimmedDataAccessException", http.StatusBadRequest}
)

// newIteratorKey returns a fresh key for the iterators' HMAC.
func newIteratorKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// streamOf returns the label of the stream of the table described by d
// and the sequence number its records follow ("" for all): DynamoDB
// starts a new stream, with a new label and ARN, each time a table's
// stream is enabled. A stream enabled at creation is labelled with the
// table's creation time; one re-enabled by UpdateTable with the time of
// that change, its records those written since (the library's stream
// keeps the earlier records, which this stream does not show).
func streamOf(d *fdyno.TableDescription) (label, after string) {
	if d.StreamLabel != "" {
		return d.StreamLabel, d.StreamStartAfter
	}
	if d.CreationDateTime.IsZero() {
		return streamLabel, ""
	}
	return d.CreationDateTime.UTC().Format(fdyno.StreamLabelLayout), ""
}

// streamInfo is one DynamoDB stream of a table: the current one, or one
// disabled less than 24 hours ago (closed).
type streamInfo struct {
	label string
	// after is the sequence number the stream's records follow ("" for
	// all).
	after string
	view  fdyno.StreamViewType
	// closed streams end at end: their last record's sequence number, or
	// after when they have none.
	closed bool
	end    string
}

// streamsOf returns the streams of the table described by d that are
// served at now: the disabled ones still readable, oldest first, then the
// current one if the stream is enabled.
func streamsOf(d *fdyno.TableDescription, now time.Time) []streamInfo {
	var out []streamInfo
	for _, ds := range d.DisabledStreams {
		if now.Sub(ds.DisabledAt) >= fdyno.DisabledStreamRetention {
			continue
		}
		si := streamInfo{label: ds.StreamLabel, after: ds.StreamStartAfter, view: ds.StreamViewType, closed: true, end: ds.StreamStartAfter}
		if si.label == "" {
			si.label = streamLabel
		}
		if ds.LastSequenceNumber > ds.StreamStartAfter {
			si.end = ds.LastSequenceNumber
		}
		out = append(out, si)
	}
	if d.StreamViewType != "" {
		label, after := streamOf(d)
		out = append(out, streamInfo{label: label, after: after, view: d.StreamViewType})
	}
	return out
}

// findStream returns the stream labelled label among the table's streams
// served at now; label "" is the current stream.
func findStream(d *fdyno.TableDescription, label string, now time.Time) (streamInfo, bool) {
	streams := streamsOf(d, now)
	for i := len(streams) - 1; i >= 0; i-- {
		si := streams[i]
		if label == si.label || label == "" && !si.closed {
			return si, true
		}
	}
	return streamInfo{}, false
}

// streamARNOf returns the ARN of the current stream of the table
// described by d.
func (s *Server) streamARNOf(d *fdyno.TableDescription) string {
	label, _ := streamOf(d)
	return s.tableARN(d.TableName) + "/stream/" + label
}

// streamARN returns the ARN of table's current stream (or, if the table
// cannot be described, of its stream under the fixed label).
func (s *Server) streamARN(table string) string {
	if _, d, err := s.describeStreamTable(nil, table); err == nil {
		return s.streamARNOf(d)
	}
	return s.tableARN(table) + "/stream/" + streamLabel
}

// streamTable resolves a StreamArn to its table's handle and description
// and the stream; anything that is not the ARN of an enabled stream or of
// one disabled less than 24 hours ago is a ResourceNotFoundException.
func (s *Server) streamTable(c *call, arn *string) (*fdyno.Table, *fdyno.TableDescription, streamInfo, error) {
	if arn == nil {
		return nil, nil, streamInfo{}, missing("streamArn")
	}
	if len(*arn) < 37 || len(*arn) > 1024 {
		return nil, nil, streamInfo{}, validation("1 validation error detected: Value '" + *arn + "' at 'streamArn' failed to satisfy constraint: Member must have length between 37 and 1024")
	}
	if !wellFormedStreamARN(*arn) {
		return nil, nil, streamInfo{}, validation("Invalid StreamArn")
	}
	notFound := &apiError{typ: errResourceNotFound, msg: "Requested resource not found: Stream: " + *arn + " not found"}
	rest, ok := strings.CutPrefix(*arn, "arn:aws:dynamodb:"+s.region+":"+s.account+":table/")
	if !ok {
		return nil, nil, streamInfo{}, notFound
	}
	name, label, ok := strings.Cut(rest, "/stream/")
	if !ok {
		return nil, nil, streamInfo{}, notFound
	}
	c.table = name
	t, d, err := s.describeStreamTable(c, name)
	if err != nil {
		return nil, nil, streamInfo{}, notFound
	}
	si, ok := findStream(d, label, s.now())
	if !ok {
		return nil, nil, streamInfo{}, notFound
	}
	return t, d, si, nil
}

// wellFormedStreamARN reports whether arn has the form of a stream ARN,
// arn:<partition>:dynamodb:<region>:<12-digit account>:table/<table
// name>/stream/<label>, the label a time as
// 2006-01-02T15:04:05.000. A malformed ARN is a ValidationException in
// DynamoDB; a well-formed one of no stream here, ResourceNotFound.
func wellFormedStreamARN(arn string) bool {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || !strings.HasPrefix(parts[1], "aws") || parts[2] != "dynamodb" || parts[3] == "" {
		return false
	}
	if len(parts[4]) != 12 || strings.Trim(parts[4], "0123456789") != "" {
		return false
	}
	rest, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return false
	}
	name, label, ok := strings.Cut(rest, "/stream/")
	if !ok || len(name) < minTableNameLength || len(name) > maxTableNameLength || !validTableName(name) {
		return false
	}
	_, err := time.Parse("2006-01-02T15:04:05.000", label)
	return err == nil
}

// describeStreamTable returns table name's handle and description.
func (s *Server) describeStreamTable(c *call, name string) (*fdyno.Table, *fdyno.TableDescription, error) {
	t, err := s.tableFor(c, name)
	if err != nil {
		return nil, nil, err
	}
	d, err := t.Describe(s.db)
	if err != nil {
		return nil, nil, err
	}
	return t, d, nil
}

// ---- ListStreams ----

type listStreamsInput struct {
	TableName               *string
	Limit                   *int
	ExclusiveStartStreamArn *string
}

type streamSummary struct {
	StreamArn   string
	StreamLabel string
	TableName   string
}

type listStreamsOutput struct {
	Streams                []streamSummary
	LastEvaluatedStreamArn string `json:",omitempty"`
}

// prepare checks Limit and names the table, if the request names one.
func (in *listStreamsInput) prepare(c *call) (string, error) {
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > maxListStreamsLimit) {
		return "", validation("1 validation error detected: Value '" + strconv.Itoa(*in.Limit) + "' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100")
	}
	if in.TableName == nil {
		return "", nil
	}
	return tableName(c, in.TableName)
}

func (s *Server) listStreams(c *call, in *listStreamsInput, t *fdyno.Table) (any, error) {
	limit := maxListStreamsLimit
	if in.Limit != nil {
		limit = *in.Limit
	}
	var names []string
	if t != nil {
		names = []string{c.table}
	} else {
		var err error
		if names, err = fdyno.ListTables(s.db, fdyno.WithRoot(s.root...)); err != nil {
			return nil, err
		}
	}
	after, afterLabel := "", ""
	if in.ExclusiveStartStreamArn != nil {
		rest, ok := strings.CutPrefix(*in.ExclusiveStartStreamArn, s.tableARN(""))
		name, label, ok2 := strings.Cut(rest, "/stream/")
		if !ok || !ok2 {
			return nil, validation("Invalid ExclusiveStartStreamArn: " + *in.ExclusiveStartStreamArn)
		}
		after, afterLabel = name, label
	}
	// Streams in (table name, label) order: a table's disabled streams
	// before its current one (labels are times).
	out := listStreamsOutput{Streams: []streamSummary{}}
tables:
	for _, name := range names {
		if after != "" && name < after {
			continue
		}
		_, d, err := s.describeStreamTable(c, name)
		if errors.Is(err, fdyno.ErrResourceNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		for _, si := range streamsOf(d, s.now()) {
			if name == after && si.label <= afterLabel {
				continue
			}
			if len(out.Streams) == limit {
				out.LastEvaluatedStreamArn = out.Streams[limit-1].StreamArn
				break tables
			}
			out.Streams = append(out.Streams, streamSummary{StreamArn: s.tableARN(name) + "/stream/" + si.label, StreamLabel: si.label, TableName: name})
		}
	}
	return out, nil
}

// ---- DescribeStream ----

type describeStreamInput struct {
	StreamArn             *string
	Limit                 *int
	ExclusiveStartShardId *string
}

type sequenceNumberRange struct {
	StartingSequenceNumber string
	// EndingSequenceNumber is set when the shard is closed.
	EndingSequenceNumber string `json:",omitempty"`
}

type shardDescription struct {
	ShardId             string
	SequenceNumberRange sequenceNumberRange
}

type streamDescription struct {
	StreamArn   string
	StreamLabel string
	// CreationRequestDateTime is when the stream began (its label), in
	// epoch seconds; absent for the fixed label of a table without a
	// creation time.
	CreationRequestDateTime float64 `json:",omitempty"`
	StreamStatus            string
	StreamViewType          string
	TableName               string
	KeySchema               []fdyno.KeySchemaElement
	Shards                  []shardDescription
	LastEvaluatedShardId    string `json:",omitempty"`
}

type describeStreamOutput struct {
	StreamDescription streamDescription
}

// prepare checks Limit; streamTable resolves the StreamArn (run).
func (in *describeStreamInput) prepare(*call) (string, error) {
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > maxDescribeStreamLimit) {
		return "", validation("1 validation error detected: Value '" + strconv.Itoa(*in.Limit) + "' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100")
	}
	return "", nil
}

func (s *Server) describeStream(c *call, in *describeStreamInput, _ *fdyno.Table) (any, error) {
	_, d, si, err := s.streamTable(c, in.StreamArn)
	if err != nil {
		return nil, err
	}
	label, after := si.label, si.after
	start := strings.Repeat("0", seqDigits)
	if after != "" {
		n, _ := new(big.Int).SetString(after, 10)
		start = formatSequenceNumber(n.Add(n, big.NewInt(1)))
	}
	var created float64
	if at, err := time.Parse(fdyno.StreamLabelLayout, label); err == nil && label != streamLabel {
		created = float64(at.UnixMilli()) / 1000
	}
	status, ending := "ENABLED", ""
	if si.closed {
		// A closed shard ends at its last record; one without records
		// ends where it starts.
		status, ending = "DISABLED", start
		if si.end != si.after {
			ending = si.end
		}
	}
	out := describeStreamOutput{StreamDescription: streamDescription{
		StreamArn: s.tableARN(d.TableName) + "/stream/" + label, StreamLabel: label, StreamStatus: status, CreationRequestDateTime: created,
		StreamViewType: string(si.view), TableName: d.TableName, KeySchema: d.KeySchema,
		Shards: []shardDescription{},
	}}
	// The one shard, unless the request starts after it.
	if in.ExclusiveStartShardId == nil || *in.ExclusiveStartShardId < shardID {
		out.StreamDescription.Shards = append(out.StreamDescription.Shards, shardDescription{
			ShardId: shardID, SequenceNumberRange: sequenceNumberRange{StartingSequenceNumber: start, EndingSequenceNumber: ending}})
	}
	return out, nil
}

// ---- GetShardIterator ----

type getShardIteratorInput struct {
	StreamArn         *string
	ShardId           *string
	ShardIteratorType *string
	SequenceNumber    *string
}

type getShardIteratorOutput struct {
	ShardIterator string
}

// prepare checks the members; streamTable resolves the StreamArn (run).
func (in *getShardIteratorInput) prepare(*call) (string, error) {
	switch {
	case in.ShardId == nil:
		return "", missing("shardId")
	case in.ShardIteratorType == nil:
		return "", missing("shardIteratorType")
	}
	switch typ := *in.ShardIteratorType; typ {
	case "TRIM_HORIZON", "LATEST":
		if in.SequenceNumber != nil {
			return "", validation("Invalid Request: SequenceNumber may only be given with AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER")
		}
	case "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER":
		if in.SequenceNumber == nil {
			return "", validation("Invalid Request: SequenceNumber is required for " + typ)
		}
	default:
		return "", enumError("shardIteratorType", typ, "TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER")
	}
	return "", nil
}

func (s *Server) getShardIterator(c *call, in *getShardIteratorInput, _ *fdyno.Table) (any, error) {
	typ := *in.ShardIteratorType
	t, d, si, err := s.streamTable(c, in.StreamArn)
	if err != nil {
		return nil, err
	}
	if *in.ShardId != shardID {
		return nil, &apiError{typ: errResourceNotFound, msg: "Requested resource not found: Shard does not exist"}
	}
	streamAfter := si.after
	it := shardIterator{table: d.TableName, label: si.label, after: streamAfter, expires: s.now().Add(iteratorLifetime)}
	switch typ {
	case "TRIM_HORIZON":
		if streamAfter != "" {
			// The oldest record of this stream that is kept: past any
			// records trimmed since it began.
			_, err := t.GetRecords(s.db, fdyno.GetRecordsInput{ExclusiveStartSequenceNumber: streamAfter, Limit: 1})
			var te *fdyno.TrimmedDataAccessError
			if errors.As(err, &te) && te.TrimHorizon > streamAfter {
				it.after = te.TrimHorizon
			} else if err != nil && !errors.As(err, &te) {
				return nil, err
			}
		}
	case "LATEST":
		if si.closed {
			it.after = si.end // a closed shard's end
		} else if it.after, err = s.latestSequenceNumber(); err != nil {
			return nil, err
		}
	case "AFTER_SEQUENCE_NUMBER":
		if !validSequenceNumber(*in.SequenceNumber) {
			return nil, invalidSequenceNumber(*in.SequenceNumber)
		}
		it.after = *in.SequenceNumber
	case "AT_SEQUENCE_NUMBER":
		if !validSequenceNumber(*in.SequenceNumber) {
			return nil, invalidSequenceNumber(*in.SequenceNumber)
		}
		it.after = precedingSequenceNumber(*in.SequenceNumber)
	}
	if it.after < streamAfter {
		// A position before this stream began: its start. (Sequence
		// numbers have one length, so they order as strings.)
		it.after = streamAfter
	}
	return getShardIteratorOutput{ShardIterator: s.encodeIterator(it)}, nil
}

func invalidSequenceNumber(seq string) error {
	return validation("Invalid SequenceNumber: " + seq + " (fdyno's sequence numbers are " + strconv.Itoa(seqDigits) + " decimal digits)")
}

// validSequenceNumber reports whether seq has the form of fdyno's
// sequence numbers: 29 decimal digits, below 2^96.
func validSequenceNumber(seq string) bool {
	if len(seq) != seqDigits {
		return false
	}
	for i := 0; i < len(seq); i++ {
		if seq[i] < '0' || seq[i] > '9' {
			return false
		}
	}
	n, ok := new(big.Int).SetString(seq, 10)
	return ok && n.BitLen() <= 96
}

// formatSequenceNumber returns n as a 29-digit sequence number.
func formatSequenceNumber(n *big.Int) string {
	d := n.Text(10)
	return strings.Repeat("0", seqDigits-len(d)) + d
}

// precedingSequenceNumber returns the position just before seq, which
// AT_SEQUENCE_NUMBER resumes after: seq-1, or "" (the start) for 0.
func precedingSequenceNumber(seq string) string {
	n, _ := new(big.Int).SetString(seq, 10)
	if n.Sign() == 0 {
		return ""
	}
	return formatSequenceNumber(n.Sub(n, big.NewInt(1)))
}

// latestSequenceNumber returns a position after every record committed
// so far: fdyno's sequence number is the 10-byte commit versionstamp (the
// 8-byte commit version, then a 2-byte order in the commit batch) and a
// 2-byte order within the transaction, so every record visible at read
// version v is at most (v, 0xffff, 0xffff), and every later record has a
// larger commit version.
func (s *Server) latestSequenceNumber() (string, error) {
	rv, err := s.db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) { return tr.GetReadVersion().Get() })
	if err != nil {
		return "", err
	}
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(rv.(int64)))
	binary.BigEndian.PutUint32(b[8:], 0xffffffff)
	return formatSequenceNumber(new(big.Int).SetBytes(b[:])), nil
}

// shardIterator is a decoded shard iterator: a position in the stream of
// table labelled label ("" is the current stream), after sequence number
// after ("" is the start).
type shardIterator struct {
	table   string
	label   string
	after   string
	expires time.Time
}

// iteratorVersion is the first byte of an encoded iterator.
const iteratorVersion = 2

// encodeIterator returns the token of it:
//
//	base64url(version:1 expiry-unix-ms:8 seqlen:1 seq labellen:1 label table) + mac
//
// where mac is the first 16 bytes of HMAC-SHA256 under the server's key
// over everything before it, also base64url.
func (s *Server) encodeIterator(it shardIterator) string {
	b := make([]byte, 0, 11+len(it.after)+len(it.label)+len(it.table)+iteratorMACLen)
	b = append(b, iteratorVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(it.expires.UnixMilli()))
	b = append(b, byte(len(it.after)))
	b = append(b, it.after...)
	b = append(b, byte(len(it.label)))
	b = append(b, it.label...)
	b = append(b, it.table...)
	m := hmac.New(sha256.New, s.iterKey)
	m.Write(b)
	b = m.Sum(b)[:len(b)+iteratorMACLen]
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeIterator parses and verifies a token of encodeIterator. Anything
// else is a ValidationException; an expired iterator an
// ExpiredIteratorException. It never allocates beyond the token's size,
// itself bounded by maxIteratorLen.
func (s *Server) decodeIterator(tok string) (shardIterator, error) {
	invalid := validation("Invalid ShardIterator")
	if len(tok) > maxIteratorLen {
		return shardIterator{}, invalid
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 10+iteratorMACLen || b[0] != iteratorVersion {
		return shardIterator{}, invalid
	}
	body, mac := b[:len(b)-iteratorMACLen], b[len(b)-iteratorMACLen:]
	m := hmac.New(sha256.New, s.iterKey)
	m.Write(body)
	if !hmac.Equal(mac, m.Sum(nil)[:iteratorMACLen]) {
		return shardIterator{}, invalid
	}
	seqLen := int(body[9])
	if seqLen != 0 && seqLen != seqDigits || len(body) < 10+seqLen+1 {
		return shardIterator{}, invalid
	}
	labelLen := int(body[10+seqLen])
	rest := body[11+seqLen:]
	if labelLen != 0 && labelLen != len(fdyno.StreamLabelLayout) || len(rest) < labelLen+1 {
		return shardIterator{}, invalid
	}
	it := shardIterator{
		expires: time.UnixMilli(int64(binary.BigEndian.Uint64(body[1:9]))),
		after:   string(body[10 : 10+seqLen]),
		label:   string(rest[:labelLen]),
		table:   string(rest[labelLen:]),
	}
	if it.after != "" && !validSequenceNumber(it.after) {
		return shardIterator{}, invalid
	}
	if !s.now().Before(it.expires) {
		return shardIterator{}, &apiError{typ: errExpiredIterator, msg: "Iterator expired. The iterator was created at time " +
			it.expires.Add(-iteratorLifetime).UTC().Format(time.RFC1123) + " while right now it is " + s.now().UTC().Format(time.RFC1123) +
			" which is further in the future than the tolerated delay of 900000 milliseconds."}
	}
	return it, nil
}

// ---- GetRecords ----

type getRecordsInput struct {
	ShardIterator *string
	Limit         *int
}

type getRecordsOutput struct {
	region  string
	records []fdyno.StreamRecord
	// nextShardIterator is empty at the end of a closed shard.
	nextShardIterator string
}

// prepare checks the members; the table is the iterator's (run).
func (in *getRecordsInput) prepare(*call) (string, error) {
	if in.ShardIterator == nil {
		return "", missing("shardIterator")
	}
	if len(*in.ShardIterator) < 1 || len(*in.ShardIterator) > maxIteratorLen {
		return "", validation("1 validation error detected: Value at 'shardIterator' failed to satisfy constraint: Member must have length between 1 and 2048")
	}
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > fdyno.MaxGetRecordsLimit) {
		return "", validation("1 validation error detected: Value '" + strconv.Itoa(*in.Limit) + "' at 'limit' failed to satisfy constraint: Member must have value between 1 and 1000")
	}
	return "", nil
}

func (s *Server) getRecords(c *call, in *getRecordsInput, _ *fdyno.Table) (any, error) {
	limit := fdyno.MaxGetRecordsLimit
	if in.Limit != nil {
		limit = *in.Limit
	}
	it, err := s.decodeIterator(*in.ShardIterator)
	if err != nil {
		return nil, err
	}
	c.table = it.table
	arn := s.streamARN(it.table)
	if it.label != "" {
		arn = s.tableARN(it.table) + "/stream/" + it.label
	}
	notFound := &apiError{typ: errResourceNotFound, msg: "Requested resource not found: Stream: " + arn + " not found"}
	t, d, err := s.describeStreamTable(c, it.table)
	if err != nil {
		return nil, notFound
	}
	si, ok := findStream(d, it.label, s.now())
	if !ok {
		return nil, notFound
	}
	if si.closed && it.after >= si.end {
		// At the end of a closed shard: no records, no next iterator.
		// (Sequence numbers have one length; "" is the start.)
		return getRecordsOutput{region: s.region, records: []fdyno.StreamRecord{}}, nil
	}
	page, err := t.GetRecords(s.db, fdyno.GetRecordsInput{ExclusiveStartSequenceNumber: it.after, Limit: limit})
	var te *fdyno.TrimmedDataAccessError
	switch {
	case errors.As(err, &te):
		return nil, &apiError{typ: errTrimmedData, msg: "Attempted to access data that has been trimmed: records up to sequence number " + te.TrimHorizon + " were trimmed"}
	case errors.Is(err, fdyno.ErrResourceNotFound), errors.Is(err, fdyno.ErrValidation):
		// The table is gone or its stream was disabled: the sequence
		// number and Limit were checked above.
		return nil, notFound
	case err != nil:
		return nil, err
	}
	if si.closed {
		// A closed shard ends at its last record: the page stops there,
		// and the page that reaches it has no next iterator.
		n := len(page.Records)
		for n > 0 && page.Records[n-1].SequenceNumber > si.end {
			n--
		}
		if n < len(page.Records) || !page.More || n > 0 && page.Records[n-1].SequenceNumber == si.end {
			return getRecordsOutput{region: s.region, records: page.Records[:n]}, nil
		}
	}
	next := shardIterator{table: it.table, label: it.label, after: page.LastEvaluatedSequenceNumber, expires: s.now().Add(iteratorLifetime)}
	return getRecordsOutput{region: s.region, records: page.Records, nextShardIterator: s.encodeIterator(next)}, nil
}

// appendJSON encodes the records in DynamoDB Streams' wire form.
func (o getRecordsOutput) appendJSON(dst []byte) []byte {
	ob := object{b: dst}
	ob.key("Records")
	ob.b = appendArray(ob.b, o.records, func(dst []byte, r fdyno.StreamRecord) []byte {
		return appendStreamRecord(dst, o.region, r)
	})
	if o.nextShardIterator != "" {
		// Absent at the end of a closed shard.
		ob.key("NextShardIterator")
		ob.b = avjson.AppendString(ob.b, o.nextShardIterator)
	}
	return ob.close()
}

// appendStreamRecord appends one Record: the event's envelope and, under
// "dynamodb", its StreamRecord.
func appendStreamRecord(dst []byte, region string, r fdyno.StreamRecord) []byte {
	rec := object{b: dst}
	rec.key("eventID")
	rec.b = avjson.AppendString(rec.b, eventID(r))
	rec.key("eventName")
	rec.b = avjson.AppendString(rec.b, string(r.EventName))
	rec.key("eventVersion")
	rec.b = avjson.AppendString(rec.b, "1.1")
	rec.key("eventSource")
	rec.b = avjson.AppendString(rec.b, "aws:dynamodb")
	rec.key("awsRegion")
	rec.b = avjson.AppendString(rec.b, region)
	rec.key("dynamodb")
	sr := object{b: rec.b}
	// Epoch seconds, rounded down, as DynamoDB Streams sends them.
	sr.int("ApproximateCreationDateTime", int(r.ApproximateCreationDateTime.Unix()))
	sr.item("Keys", r.Keys)
	if r.NewImage != nil {
		sr.item("NewImage", r.NewImage)
	}
	if r.OldImage != nil {
		sr.item("OldImage", r.OldImage)
	}
	sr.key("SequenceNumber")
	sr.b = avjson.AppendString(sr.b, r.SequenceNumber)
	sr.int("SizeBytes", r.SizeBytes)
	sr.key("StreamViewType")
	sr.b = avjson.AppendString(sr.b, string(r.StreamViewType))
	rec.b = sr.close()
	if u := r.UserIdentity; u != nil {
		rec.key("userIdentity")
		id := object{b: rec.b}
		id.key("PrincipalId")
		id.b = avjson.AppendString(id.b, u.PrincipalID)
		id.key("Type")
		id.b = avjson.AppendString(id.b, u.Type)
		rec.b = id.close()
	}
	return rec.close()
}

// eventID returns a record's eventID: 32 hex digits (as DynamoDB's are),
// derived from the table and the sequence number, so that it is unique
// and the same on every read.
func eventID(r fdyno.StreamRecord) string {
	h := sha256.Sum256([]byte(r.TableName + "\x00" + r.SequenceNumber))
	return hex.EncodeToString(h[:16])
}
