package fdyno_test

import (
	"errors"
	"fmt"

	"github.com/fdyno/fdyno"
)

// onePartition is an AccessGuard that lets a handle touch one partition
// only, as a multi-tenant service would for a tenant's requests.
type onePartition struct{ p []byte }

var errForbidden = errors.New("forbidden")

func (g onePartition) Allow(a fdyno.Access) error {
	if a.InPartition(g.p) {
		return nil
	}
	return errForbidden
}

// A guarded handle asks its guard before every item it reads or writes:
// a request that reaches outside the tenant's partition fails before the
// item is touched, whatever the request looks like.
func ExampleTable_Guarded() {
	db, root := exampleDB("Guarded")
	music, _ := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	acme := fdyno.Item{"Artist": fdyno.S("Acme Band"), "SongTitle": fdyno.S("Happy Day")}
	other := fdyno.Item{"Artist": fdyno.S("No One You Know"), "SongTitle": fdyno.S("Call Me Today")}
	_, _ = music.Put(db, fdyno.PutInput{Item: acme})
	_, _ = music.Put(db, fdyno.PutInput{Item: other})

	p, _ := fdyno.PackPartition(fdyno.S("Acme Band"))
	tenant := music.Guarded(onePartition{p})
	got, err := tenant.Get(db, fdyno.GetInput{Key: acme})
	fmt.Println(got.Item["SongTitle"].S(), err)
	_, err = tenant.Get(db, fdyno.GetInput{Key: other})
	fmt.Println(errors.Is(err, errForbidden))
	_, err = tenant.Delete(db, fdyno.DeleteInput{Key: other})
	fmt.Println(errors.Is(err, errForbidden))
	_, err = tenant.Scan(db, fdyno.ScanInput{})
	fmt.Println(errors.Is(err, errForbidden))
	still, _ := music.Get(db, fdyno.GetInput{Key: other})
	fmt.Println(still.Item != nil)
	// Output:
	// Happy Day <nil>
	// true
	// true
	// true
	// true
}
