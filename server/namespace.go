package server

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
	"github.com/fdyno/fdyno"
)

// namespace.go scopes tables to an account and a region, as DynamoDB
// does: a table created by one account in one region is invisible to
// every other account, and to the same account in another region.
//
// A namespace is a set of tables (with their indexes, streams, tags, TTL
// settings and the PartiQL statements that reach them) in one directory
// of the database. With [SharedNamespace] (Config's zero value, and
// fdyno-server's --shared-db) there is one, the directory-layer path
// Config.Root (default "dynodb"), with account 000000000000 and
// Config.Region in its ARNs: the layout fdyno-server always had. With
// [PerAccountNamespaces] (fdyno-server's default), the namespace of
// account A in region R is the path
//
//	<Root with ".accounts" appended to its last element>/<A>/<R>
//
// ("dynodb.accounts/123456789012/eu-west-1"), a sibling of the shared
// namespace rather than a child, so the shared namespace's ListTables
// never sees it; and the shared namespace stays where it was, as the
// namespace of the default account 000000000000 in Config.Region. Data
// written before namespaces existed is therefore reached by --shared-db,
// or by a key whose account in the key file is 000000000000.
//
// A request's account is its access key's: the key file's third column,
// or else [AccountOf] the key ID (DynamoDB Local likewise keeps one
// database per access key ID and region). Its region is the one its
// signature's credential scope names. An unsigned request (accepted only
// without --auth) belongs to the default account in Config.Region.
//
// Each namespace is served by its own Server value sharing the parent's
// database, keys, metrics and request slots, with its own table handles,
// its own shard-iterator key (an iterator from one namespace does not
// authenticate in another) and, once it holds a table, its own
// background work (backfills, TTL sweeper, stream trimmer).

// NamespaceMode chooses how a [Server] scopes tables.
type NamespaceMode int

const (
	// SharedNamespace serves every client the tables under Config.Root.
	SharedNamespace NamespaceMode = iota
	// PerAccountNamespaces gives each (account, region) its own tables.
	PerAccountNamespaces
)

// namespaces are the per-account namespaces of a parent Server.
type namespaces struct {
	mu   sync.Mutex
	kept map[nsKey]*Server // namespaces with background work, by account and region
}

type nsKey struct{ account, region string }

// namespacesSuffix is appended to the last element of Config.Root to name
// the directory of the per-account namespaces.
const namespacesSuffix = ".accounts"

// maxRegionLength bounds a region name taken from a credential scope.
const maxRegionLength = 32

// namespacePath is the directory-layer path of the namespace of account
// in region under root.
func namespacePath(root []string, account, region string) []string {
	p := slices.Clone(root)
	p[len(p)-1] += namespacesSuffix
	return append(p, account, region)
}

// AccountOf is the 12-digit account fdyno-server gives an access key ID
// that the key file assigns none (or when there is no key file): a hash
// of the ID, so the same key always reaches the same tables. It is never
// the default account 000000000000.
func AccountOf(keyID string) string {
	sum := sha256.Sum256([]byte(keyID))
	n := binary.BigEndian.Uint64(sum[:8]) % 1_000_000_000_000
	if n == 0 {
		n = 1
	}
	return fmt.Sprintf("%012d", n)
}

// validAccount reports whether a is a 12-digit AWS account ID.
func validAccount(a string) bool {
	return len(a) == 12 && strings.Trim(a, "0123456789") == ""
}

// validRegion reports whether r can name a region: 1 to 32 lower-case
// letters, digits and dashes ("us-east-1", "local").
func validRegion(r string) bool {
	if r == "" || len(r) > maxRegionLength {
		return false
	}
	for i := 0; i < len(r); i++ {
		if c := r[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// startNamespaces sets up per-account namespaces for cfg, when it asks
// for them: the ones the database holds start their background work, and
// a warning names the shared namespace's tables, which only the default
// account reaches now.
func (s *Server) startNamespaces(cfg Config) error {
	for id, a := range cfg.Accounts {
		if !validAccount(a) {
			return fmt.Errorf("server: the account of access key ID %s is %q, not 12 digits", id, a)
		}
	}
	if cfg.Namespaces != PerAccountNamespaces {
		return nil
	}
	s.spaces = &namespaces{kept: map[nsKey]*Server{}}
	base := namespacePath(s.root, "", "")
	base = base[:len(base)-2]
	found, err := s.db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) {
		var keys []nsKey
		if ok, err := directory.Exists(tr, base); err != nil || !ok {
			return keys, err
		}
		accounts, err := directory.List(tr, base)
		if err != nil {
			return nil, err
		}
		for _, a := range accounts {
			regions, err := directory.List(tr, append(slices.Clone(base), a))
			if err != nil {
				return nil, err
			}
			for _, r := range regions {
				keys = append(keys, nsKey{a, r})
			}
		}
		return keys, nil
	})
	if err != nil {
		return fmt.Errorf("server: listing the account namespaces: %w", err)
	}
	for _, k := range found.([]nsKey) {
		ns := s.newNamespace(k.account, k.region)
		s.spaces.kept[k] = ns
		ns.startBackground()
	}
	if legacy, err := fdyno.ListTables(s.db, fdyno.WithRoot(s.root...)); err == nil && len(legacy) > 0 {
		s.log.Warn("the shared namespace holds tables, which only the default account reaches with per-account namespaces; run with --shared-db, or give a key account 000000000000 in the key file",
			slog.Int("tables", len(legacy)), slog.String("account", accountID), slog.String("region", s.region))
	}
	return nil
}

// newNamespace returns a Server for the namespace of account in region,
// sharing s's database, keys, metrics and request slots; its background
// work is not started.
func (s *Server) newNamespace(account, region string) *Server {
	ns := &Server{
		db:       s.db,
		root:     namespacePath(s.root, account, region),
		keys:     s.keys,
		region:   region,
		account:  account,
		log:      s.log,
		now:      s.now,
		ops:      s.ops,
		iterKey:  newIteratorKey(),
		holder:   s.holder,
		tables:   map[string]*fdyno.Table{},
		metrics:  s.metrics,
		inFlight: s.inFlight,
		bgConfig: s.bgConfig,

		accounts:      s.accounts,
		policies:      s.policies,
		auditAll:      s.auditAll,
		observeAccess: s.observeAccess,
	}
	ns.pq = ns.newPartiQL()
	ns.bg.ctx, ns.bg.cancel = context.WithCancel(s.bg.ctx)
	ns.bg.slots = s.bg.slots
	ns.bg.running = map[backfillID]bool{}
	return ns
}

// namespaceOf returns the Server of r's namespace and records its account
// and region in c. A namespace without tables gets a transient Server,
// kept (keepNamespace) once a table is created in it.
func (s *Server) namespaceOf(id identity, c *call) (*Server, error) {
	c.account, c.region = s.account, s.region
	keyID, region := id.keyID, id.region
	if s.spaces == nil {
		if s.keys != nil {
			c.account = s.accountOfKey(keyID) // the principal's, for logs and metrics
		}
		return s, nil
	}
	if keyID == "" {
		return s, nil
	}
	if !validRegion(region) {
		return nil, incomplete("Credential should be scoped to a valid region, not '" + truncate(region, maxRegionLength) + "'.")
	}
	account := s.accountOfKey(keyID)
	c.account, c.region = account, region
	if account == s.account && region == s.region {
		return s, nil
	}
	k := nsKey{account, region}
	s.spaces.mu.Lock()
	ns, ok := s.spaces.kept[k]
	s.spaces.mu.Unlock()
	if ok {
		return ns, nil
	}
	ns = s.newNamespace(account, region)
	exists, err := s.db.ReadTransact(func(tr fdb.ReadTransaction) (any, error) {
		return directory.Exists(tr, ns.root)
	})
	if err != nil {
		return nil, err
	}
	if exists.(bool) {
		// Created by another server on the same database.
		s.keepNamespace(ns)
	}
	return ns, nil
}

// keepNamespace keeps ns, a namespace that now holds tables, and starts
// its background work, unless one for the same namespace is kept
// already: then ns's background work (a backfill its CreateTable
// started) stops, and the kept one resumes it.
func (s *Server) keepNamespace(ns *Server) {
	if s.spaces == nil {
		return
	}
	k := nsKey{ns.account, ns.region}
	s.spaces.mu.Lock()
	kept, ok := s.spaces.kept[k]
	if !ok && s.bg.ctx.Err() == nil {
		s.spaces.kept[k] = ns
	}
	s.spaces.mu.Unlock()
	switch {
	case !ok:
		ns.startBackground()
	case kept != ns:
		ns.Close()
		kept.goBackground(kept.resumeBackfills)
	}
}

// settleNamespace decides the fate of ns after a request ran in it: a
// kept namespace stays; a transient one is kept when the request created
// a table in it or started background work there (a backfill), and is
// otherwise dropped, its context released, so requests to namespaces
// without tables (any key ID a client makes up, without --auth) hold no
// memory.
func (s *Server) settleNamespace(ns *Server, created bool) {
	s.spaces.mu.Lock()
	kept := s.spaces.kept[nsKey{ns.account, ns.region}] == ns
	s.spaces.mu.Unlock()
	if kept {
		return
	}
	ns.bg.mu.Lock()
	busy := len(ns.bg.running) > 0 || len(ns.bg.jobs) > 0
	ns.bg.mu.Unlock()
	if created || busy {
		s.keepNamespace(ns)
		return
	}
	ns.Close()
}

// closeNamespaces stops the background work of every kept namespace.
func (s *Server) closeNamespaces() {
	if s.spaces == nil {
		return
	}
	s.spaces.mu.Lock()
	kept := make([]*Server, 0, len(s.spaces.kept))
	for _, ns := range s.spaces.kept {
		kept = append(kept, ns)
	}
	s.spaces.mu.Unlock()
	for _, ns := range kept {
		ns.Close()
	}
}
