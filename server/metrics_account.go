package server

import "github.com/prometheus/client_golang/prometheus"

// metrics_account.go counts requests by account, for servers with access
// keys: their accounts are a fixed set (the key file's, or one per key
// ID), so the label cannot grow with what clients send. Without keys an
// account is derived from any key ID a client makes up, and every
// request is counted under account "unauthenticated".

// accountMetrics is the per-account request counter of a metrics
// registry.
type accountMetrics struct {
	requests *prometheus.CounterVec // account, result
}

func (m *metrics) registerAccounts() *accountMetrics {
	a := &accountMetrics{requests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "fdyno", Name: "account_requests_total",
		Help: "Requests answered, by account (\"unauthenticated\" without access keys) and result: success, or the DynamoDB error name sent.",
	}, []string{"account", "result"})}
	if m != nil {
		m.reg.MustRegister(a.requests)
	}
	return a
}

// accountRequest counts one answered request of c.
func (s *Server) accountRequest(c *call, ae *apiError) {
	if s.accountStats == nil {
		return
	}
	account := "unauthenticated"
	if s.keys != nil && c.account != "" {
		account = c.account
	}
	result := "success"
	if ae != nil {
		result = ae.typ.short()
	}
	s.accountStats.requests.WithLabelValues(account, result).Inc()
}
