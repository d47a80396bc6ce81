package server

import (
	"encoding/json"
	"strconv"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/partiql"
)

// partiql.go: ExecuteStatement, BatchExecuteStatement and
// ExecuteTransaction, through package partiql with the server's table
// handles, with DynamoDB's limits at the wire: a statement of 1 to 8192
// characters, at most 25 statements in a batch and 100 in a transaction.
// An INSERT of an existing item answers DuplicateItemException.

// maxTransactStatements is DynamoDB's limit on the statements of one
// ExecuteTransaction.
const maxTransactStatements = 100

// wireList is a JSON array of AttributeValues, such as Parameters; its
// zero value (nil) is an absent list.
type wireList []fdyno.Value

// UnmarshalJSON decodes the list; JSON null leaves it nil.
func (w *wireList) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*w = nil
		return nil
	}
	out := make(wireList, len(raw))
	for i, r := range raw {
		v, err := decodeValue(r)
		if err != nil {
			return err
		}
		out[i] = v
	}
	*w = out
	return nil
}

// checkParameters applies DynamoDB's constraint on Parameters: absent,
// or at least one value.
func checkParameters(field string, p wireList) error {
	if p != nil && len(p) == 0 {
		return validation("1 validation error detected: Value '[]' at '" + field + "' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	return nil
}

// checkStatement applies DynamoDB's constraints on Statement.
func checkStatement(field string, s *string) error {
	switch {
	case s == nil:
		return missing(field)
	case len(*s) == 0:
		return validation("1 validation error detected: Value '' at '" + field + "' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case len(*s) > partiql.MaxStatementLength:
		return validation("1 validation error detected: Value at '" + field + "' failed to satisfy constraint: Member must have length less than or equal to " + strconv.Itoa(partiql.MaxStatementLength))
	}
	return nil
}

// checkMemberStatement checks a statement of a batch or transaction,
// whose members' names begin with prefix.
func checkMemberStatement(prefix string, st *string, p wireList, r fdyno.ReturnValuesOnConditionCheckFailure) error {
	if err := checkStatement(prefix+"statement", st); err != nil {
		return err
	}
	if err := checkParameters(prefix+"parameters", p); err != nil {
		return err
	}
	return checkReturnOnFailure(r)
}

func checkReturnOnFailure(r fdyno.ReturnValuesOnConditionCheckFailure) error {
	switch r {
	case "", fdyno.ReturnValuesOnConditionCheckFailureNone, fdyno.ReturnValuesOnConditionCheckFailureAllOld:
		return nil
	}
	return enumError("returnValuesOnConditionCheckFailure", string(r), "ALL_OLD", "NONE")
}

// newPartiQL returns the PartiQL executor of s: it resolves table names
// to the handles of s, and keeps the statements it parses, so a statement
// authorized (policy_request.go) and then run is parsed once.
func (s *Server) newPartiQL() *partiql.Executor { return partiql.NewWithTables(s.openTable) }

// partiQL is s's executor for request c: its tables are c's handles
// (tableFor), its parsed statements s's.
func (s *Server) partiQL(c *call) *partiql.Executor {
	return s.pq.WithTables(func(name string) (*fdyno.Table, error) { return s.tableFor(c, name) })
}

type executeStatementInput struct {
	Statement                           *string
	Parameters                          wireList
	ConsistentRead                      bool
	NextToken                           *string
	Limit                               *int
	ReturnConsumedCapacity              string
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
}

type executeStatementOutput struct {
	Items            []wireItem
	NextToken        string            `json:",omitempty"`
	LastEvaluatedKey wireItem          `json:",omitempty"`
	ConsumedCapacity *consumedCapacity `json:",omitempty"`
}

// prepare checks the members that come before the statement's parse;
// the statement names its tables, which package partiql resolves
// (run).
func (in *executeStatementInput) prepare(*call) (string, error) {
	if err := checkStatement("statement", in.Statement); err != nil {
		return "", err
	}
	if err := checkParameters("parameters", in.Parameters); err != nil {
		return "", err
	}
	if err := checkReturnConsumedCapacity(in.ReturnConsumedCapacity); err != nil {
		return "", err
	}
	return "", checkReturnOnFailure(in.ReturnValuesOnConditionCheckFailure)
}

func (s *Server) executeStatement(c *call, in *executeStatementInput, _ *fdyno.Table) (any, error) {
	info, err := s.pq.Statement(*in.Statement)
	if err != nil {
		return nil, err
	}
	c.table = info.TableName
	req := partiql.ExecuteStatementInput{Statement: *in.Statement, Parameters: in.Parameters, ConsistentRead: in.ConsistentRead,
		ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure}
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, validation("1 validation error detected: Value '" + strconv.Itoa(*in.Limit) + "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		}
		req.Limit = *in.Limit
	}
	if in.NextToken != nil {
		if len(*in.NextToken) == 0 || len(*in.NextToken) > 32768 {
			return nil, validation("1 validation error detected: Value at 'nextToken' failed to satisfy constraint: Member must have length between 1 and 32768")
		}
		req.NextToken = *in.NextToken
	}
	out, err := s.partiQL(c).ExecuteStatement(s.db, req)
	if err != nil {
		return nil, err
	}
	res := executeStatementOutput{Items: make([]wireItem, len(out.Items)), NextToken: out.NextToken, LastEvaluatedKey: wireItem(out.LastEvaluatedKey)}
	for i, it := range out.Items {
		res.Items[i] = wireItem(it)
	}
	if info.Action == "PartiQLSelect" {
		size := 0
		if wantsCapacity(in.ReturnConsumedCapacity) {
			for _, it := range out.Items {
				size += it.Size()
			}
		}
		res.ConsumedCapacity = readCapacity(in.ReturnConsumedCapacity, c.table, size, in.ConsistentRead)
	} else {
		res.ConsumedCapacity = writeCapacity(in.ReturnConsumedCapacity, c.table, out.Items...)
	}
	return res, nil
}

type batchStatementRequest struct {
	Statement                           *string
	Parameters                          wireList
	ConsistentRead                      bool
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
}

type batchExecuteStatementInput struct {
	Statements             []batchStatementRequest
	ReturnConsumedCapacity string
}

type batchStatementError struct {
	Code    string
	Message string   `json:",omitempty"`
	Item    wireItem `json:",omitempty"`
}

type batchStatementResponse struct {
	TableName string               `json:",omitempty"`
	Item      wireItem             `json:",omitempty"`
	Error     *batchStatementError `json:",omitempty"`
}

type batchExecuteStatementOutput struct {
	Responses []batchStatementResponse
}

// prepare checks the request's own members; each statement is checked
// as it is read (run), and names its table.
func (in *batchExecuteStatementInput) prepare(*call) (string, error) {
	switch n := len(in.Statements); {
	case in.Statements == nil:
		return "", missing("statements")
	case n == 0:
		return "", validation("1 validation error detected: Value '[]' at 'statements' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case n > partiql.MaxBatchStatements:
		return "", validation("1 validation error detected: Value at 'statements' failed to satisfy constraint: Member must have length less than or equal to " + strconv.Itoa(partiql.MaxBatchStatements))
	}
	return "", checkReturnConsumedCapacity(in.ReturnConsumedCapacity)
}

func (s *Server) batchExecuteStatement(c *call, in *batchExecuteStatementInput, _ *fdyno.Table) (any, error) {
	req := partiql.BatchExecuteStatementInput{Statements: make([]partiql.BatchStatementRequest, len(in.Statements))}
	for i, st := range in.Statements {
		if err := checkMemberStatement("statements.member.", st.Statement, st.Parameters, st.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		req.Statements[i] = partiql.BatchStatementRequest{Statement: *st.Statement, Parameters: st.Parameters,
			ConsistentRead: st.ConsistentRead, ReturnValuesOnConditionCheckFailure: st.ReturnValuesOnConditionCheckFailure}
	}
	out, err := s.partiQL(c).BatchExecuteStatement(s.db, req)
	if err != nil {
		return nil, err
	}
	res := batchExecuteStatementOutput{Responses: make([]batchStatementResponse, len(out.Responses))}
	for i, r := range out.Responses {
		res.Responses[i] = batchStatementResponse{TableName: r.TableName, Item: wireItem(r.Item)}
		if r.Error != nil {
			res.Responses[i].Error = &batchStatementError{Code: r.Error.Code, Message: r.Error.Message, Item: wireItem(r.Error.Item)}
		}
	}
	return res, nil
}

type parameterizedStatement struct {
	Statement                           *string
	Parameters                          wireList
	ReturnValuesOnConditionCheckFailure fdyno.ReturnValuesOnConditionCheckFailure
}

type executeTransactionInput struct {
	TransactStatements     []parameterizedStatement
	ClientRequestToken     *string
	ReturnConsumedCapacity string
}

type executeTransactionOutput struct {
	Responses []itemResponse `json:",omitempty"`
}

// prepare checks the request's own members (see
// batchExecuteStatementInput.prepare).
func (in *executeTransactionInput) prepare(*call) (string, error) {
	switch n := len(in.TransactStatements); {
	case in.TransactStatements == nil:
		return "", missing("transactStatements")
	case n == 0:
		return "", validation("1 validation error detected: Value '[]' at 'transactStatements' failed to satisfy constraint: Member must have length greater than or equal to 1")
	case n > maxTransactStatements:
		return "", validation("1 validation error detected: Value at 'transactStatements' failed to satisfy constraint: Member must have length less than or equal to " + strconv.Itoa(maxTransactStatements))
	}
	return "", checkReturnConsumedCapacity(in.ReturnConsumedCapacity)
}

func (s *Server) executeTransaction(c *call, in *executeTransactionInput, _ *fdyno.Table) (any, error) {
	req := partiql.ExecuteTransactionInput{TransactStatements: make([]partiql.ParameterizedStatement, len(in.TransactStatements))}
	if in.ClientRequestToken != nil {
		if n := len(*in.ClientRequestToken); n == 0 || n > fdyno.MaxClientRequestTokenLength {
			return nil, validation("1 validation error detected: Value '" + *in.ClientRequestToken + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length between 1 and 36")
		}
		req.ClientRequestToken = *in.ClientRequestToken
	}
	for i, st := range in.TransactStatements {
		if err := checkMemberStatement("transactStatements.member.", st.Statement, st.Parameters, st.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		req.TransactStatements[i] = partiql.ParameterizedStatement{Statement: *st.Statement, Parameters: st.Parameters,
			ReturnValuesOnConditionCheckFailure: st.ReturnValuesOnConditionCheckFailure}
	}
	out, err := s.partiQL(c).ExecuteTransaction(s.db, req)
	if err != nil {
		return nil, err
	}
	var res executeTransactionOutput
	if out.Responses != nil {
		res.Responses = make([]itemResponse, len(out.Responses))
		for i, r := range out.Responses {
			if r.Item != nil {
				it := wireItem(r.Item)
				res.Responses[i].Item = &it
			}
		}
	}
	return res, nil
}
