package server

import (
	"log/slog"
)

// audit.go records authorization decisions: every refusal, as a log
// record at warning level and in the counter
// fdyno_authorization_decisions_total{decision} of /metrics, and, with
// Config.AuditLog (--audit-log), every decision, allowed ones included, at
// info level. A record names the access key ID, the account, the action,
// the resource and the decision; never a secret, a signature or data.

// audit records the decision d on check for request c.
func (s *Server) audit(c *call, check authzCheck, d decision) {
	name := "allow"
	switch d {
	case explicitDeny:
		name = "explicit_deny"
	case implicitDeny:
		name = "implicit_deny"
	}
	s.metrics.decision(name)
	if d == allowed && !s.auditAll {
		return
	}
	level := slog.LevelWarn
	if d == allowed {
		level = slog.LevelInfo
	}
	s.log.LogAttrs(c.ctx, level, "authorization",
		slog.String("key_id", c.who.keyID), slog.String("account", c.who.account),
		slog.String("action", check.action), slog.String("resource", check.resource),
		slog.String("decision", name), slog.String("op", c.op))
}

// auditRefusedAtAccess records a refusal by a guarded handle: an access
// the up-front checks did not grant (authz.go).
func (s *Server) auditRefusedAtAccess(c *call, ae *apiError) {
	s.metrics.decision("refused_at_access")
	s.log.LogAttrs(c.ctx, slog.LevelWarn, "authorization",
		slog.String("key_id", c.who.keyID), slog.String("account", c.who.account),
		slog.String("op", c.op), slog.String("decision", "refused_at_access"), slog.String("message", ae.msg))
}
