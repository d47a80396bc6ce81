package tree

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// rows.go reads the object rows of many paths together.

// Items one TransactGet reads: DynamoDB's 100, or, for whole objects (up
// to 400 KB each), 10, inside its 4 MB.
const (
	maxTransactGet      = 100
	maxTransactGetWhole = 10
)

// getRows reads the object rows of paths together, nil for a path with
// none: whole rows if full, else only Key and the reserved attribute.
func (t *Tree) getRows(rt fdb.ReadTransaction, paths []Path, full bool) ([]fdyno.Item, error) {
	rows := make([]fdyno.Item, len(paths))
	per := maxTransactGet
	if full {
		per = maxTransactGetWhole
	}
	for start := 0; start < len(paths); start += per {
		chunk := paths[start:min(start+per, len(paths))]
		in := fdyno.TransactGetInput{TransactItems: make([]fdyno.TransactGetItem, len(chunk))}
		for i, p := range chunk {
			in.TransactItems[i] = fdyno.TransactGetItem{Table: t.table, Key: t.objectRowKey(p)}
			if !full {
				in.TransactItems[i].ProjectionExpression = "#k, #r"
				in.TransactItems[i].ExpressionAttributeNames = map[string]string{"#k": KeyAttribute, "#r": t.r}
			}
		}
		out, err := fdyno.TransactGet(rt, in)
		if err != nil {
			return nil, err
		}
		for i, res := range out.Responses {
			rows[start+i] = res.Item
		}
	}
	return rows, nil
}
