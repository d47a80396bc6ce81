package server

import (
	"strings"
	"sync"
	"testing"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/internal/testtime"
	"github.com/google/go-cmp/cmp"
)

// probeInput is the input of a probe operation that goes through the one
// request path (handler): it fails prepare with Fail, or names TableName.
type probeInput struct {
	TableName *string
	Fail      string
}

// wholeTable is the check of action on table (its ARN) granting kinds on
// every partition.
func (s *Server) wholeTable(action, table string, kinds accessKind) accessCheck {
	return accessCheck{authzCheck: authzCheck{action: action, resource: s.tableARN(table)}, table: table, kinds: kinds, partsUnknown: true}
}

func (in *probeInput) authz(s *Server, c *call) ([]accessCheck, error) {
	table, err := authzTable(c, in.TableName)
	if err != nil {
		return nil, err
	}
	return []accessCheck{s.wholeTable("dynamodb:Probe", table, readItems)}, nil
}

func (in *probeInput) prepare(c *call) (string, error) {
	if in.Fail != "" {
		return "", validation(in.Fail)
	}
	if in.TableName == nil {
		return "", nil
	}
	return tableName(c, in.TableName)
}

// The request path decodes, prepares, looks up the table prepare names
// and only then runs the operation: a body that does not parse is a
// SerializationException, a check that fails is reported before any
// table lookup (DynamoDB validates before it looks at a table), a table
// that does not exist is a ResourceNotFoundException, and the run
// function gets the handle of the table named, by name or by ARN, or none.
func TestHandlerRequestPath(t *testing.T) {
	ts := newTestServer(t, Config{})
	createTable(t, ts.client(testCredentials), "probed", "", "")
	type ran struct {
		Ran   bool
		Table string // the handle's name; "" for none
	}
	var (
		mu  sync.Mutex // the run function writes got on the server's goroutine
		got ran
	)
	ts.ops[targetPrefix+"Probe"] = handler(func(s *Server, c *call, in *probeInput, tbl *fdyno.Table) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		got.Ran = true
		if tbl != nil {
			got.Table = tbl.Name()
		}
		return emptyOutput{}, nil
	})
	tests := []struct {
		name     string
		body     string
		wantErr  string // the error's type, "" for success
		wantRun  ran
		wantLogs string // the table the log record names
	}{
		{name: "malformed JSON", body: `{"TableName":`, wantErr: "SerializationException"},
		{name: "wrong JSON type", body: `{"TableName":1}`, wantErr: "SerializationException"},
		{name: "check before lookup", body: `{"TableName":"nosuchtable","Fail":"bad"}`, wantErr: "ValidationException"},
		{name: "invalid table name", body: `{"TableName":"a b"}`, wantErr: "ValidationException", wantLogs: "a b"},
		{name: "missing table", body: `{"TableName":"nosuchtable"}`, wantErr: "ResourceNotFoundException", wantLogs: "nosuchtable"},
		{name: "table", body: `{"TableName":"probed"}`, wantRun: ran{Ran: true, Table: "probed"}, wantLogs: "probed"},
		{name: "table ARN", body: `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/probed"}`,
			wantRun: ran{Ran: true, Table: "probed"}, wantLogs: "probed"},
		{name: "no table", body: `{}`, wantRun: ran{Ran: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			got = ran{}
			mu.Unlock()
			before := len(ts.logs.String())
			status, errType, msg := ts.post(t, targetPrefix+"Probe", contentType, strings.NewReader(tc.body))
			if errType != tc.wantErr || (tc.wantErr == "") != (status == 200) {
				t.Errorf("Probe(%s) = %d %s %q, want error %q", tc.body, status, errType, msg, tc.wantErr)
			}
			mu.Lock()
			gotRun := got
			mu.Unlock()
			if diff := cmp.Diff(tc.wantRun, gotRun); diff != "" {
				t.Errorf("Probe(%s) run mismatch (-want +got):\n%s", tc.body, diff)
			}
			// The record is logged after the answer is sent.
			var logged string
			testtime.WaitUntil(t, "the Probe's log record", func() bool {
				for _, line := range strings.Split(ts.logs.String()[before:], "\n") {
					if strings.Contains(line, `"op":"Probe"`) {
						logged = line
					}
				}
				return logged != ""
			})
			if want := `"table":"` + tc.wantLogs + `"`; !strings.Contains(logged, want) {
				t.Errorf("Probe(%s) logged %s, want %s", tc.body, logged, want)
			}
		})
	}
}
