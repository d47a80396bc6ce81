package server

import "github.com/fdyno/fdyno"

// endpoints.go: DescribeEndpoints and DescribeLimits, which SDKs and
// tools probe, answered as DynamoDB documents them.
//
// DescribeEndpoints returns the endpoint to use and how long to cache it:
// here the address the client reached (the request's Host), cached 1440
// minutes as DynamoDB's is. DescribeLimits returns the account's and a
// table's capacity quotas; fdyno enforces none, so it reports DynamoDB's
// documented default quotas (Service, account, and table quotas in
// Amazon DynamoDB: 80,000 read and write capacity units per account,
// 40,000 per table).

type endpoint struct {
	Address              string
	CachePeriodInMinutes int64
}

type describeEndpointsOutput struct {
	Endpoints []endpoint
}

// endpointCachePeriodInMinutes is DynamoDB's CachePeriodInMinutes.
const endpointCachePeriodInMinutes = 1440

// noInput is the input of an operation that takes no members.
type noInput struct{}

func (*noInput) prepare(*call) (string, error) { return "", nil }

func (s *Server) describeEndpoints(c *call, _ *noInput, _ *fdyno.Table) (any, error) {
	return describeEndpointsOutput{Endpoints: []endpoint{{Address: c.host, CachePeriodInMinutes: endpointCachePeriodInMinutes}}}, nil
}

type describeLimitsOutput struct {
	AccountMaxReadCapacityUnits  int64
	AccountMaxWriteCapacityUnits int64
	TableMaxReadCapacityUnits    int64
	TableMaxWriteCapacityUnits   int64
}

// DynamoDB's default capacity quotas.
const (
	defaultAccountMaxCapacityUnits = 80000
	defaultTableMaxCapacityUnits   = 40000
)

func (s *Server) describeLimits(c *call, _ *noInput, _ *fdyno.Table) (any, error) {
	return describeLimitsOutput{
		AccountMaxReadCapacityUnits: defaultAccountMaxCapacityUnits, AccountMaxWriteCapacityUnits: defaultAccountMaxCapacityUnits,
		TableMaxReadCapacityUnits: defaultTableMaxCapacityUnits, TableMaxWriteCapacityUnits: defaultTableMaxCapacityUnits,
	}, nil
}
