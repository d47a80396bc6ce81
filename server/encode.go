package server

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/internal/avjson"
)

// encode.go: the responses that carry items are appended straight into
// the body with the AttributeValue codec, rather than through
// encoding/json, which would re-scan every item's JSON to compact it.
// The others go through encoding/json (ServeHTTP).

// appender is a response that encodes itself.
type appender interface {
	appendJSON(dst []byte) []byte
}

// object appends the members of one JSON object.
type object struct {
	b []byte
	n int
}

func (o *object) key(k string) {
	if o.n == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = avjson.AppendString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *object) item(k string, it fdyno.Item) {
	o.key(k)
	o.b = appendItem(o.b, it)
}

func (o *object) int(k string, v int) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
}

// marshal appends v under k through encoding/json, for the members
// that carry no items on their hot path.
func (o *object) marshal(k string, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		return // cannot happen: plain strings, numbers and items, which encode themselves
	}
	o.key(k)
	o.b = append(o.b, raw...)
}

func (o *object) capacity(cc *consumedCapacity) {
	if cc != nil {
		o.marshal("ConsumedCapacity", cc)
	}
}

// capacities appends the ConsumedCapacity of a multi-table operation.
func (o *object) capacities(cc []consumedCapacity) {
	if cc != nil {
		o.marshal("ConsumedCapacity", cc)
	}
}

func (o *object) close() []byte {
	if o.n == 0 {
		return append(o.b, '{', '}')
	}
	return append(o.b, '}')
}

func (o getItemOutput) appendJSON(dst []byte) []byte {
	ob := object{b: dst}
	if o.Item != nil {
		ob.item("Item", fdyno.Item(*o.Item))
	}
	ob.capacity(o.ConsumedCapacity)
	return ob.close()
}

func (o writeOutput) appendJSON(dst []byte) []byte {
	ob := object{b: dst}
	if len(o.Attributes) > 0 {
		ob.item("Attributes", fdyno.Item(o.Attributes))
	}
	ob.capacity(o.ConsumedCapacity)
	ob.collectionMetrics(o.ItemCollectionMetrics)
	return ob.close()
}

func (o readOutput) appendJSON(dst []byte) []byte {
	ob := object{b: dst}
	if o.Items != nil {
		ob.key("Items")
		ob.b = appendArray(ob.b, *o.Items, appendWireItem)
	}
	ob.int("Count", o.Count)
	ob.int("ScannedCount", o.ScannedCount)
	if len(o.LastEvaluatedKey) > 0 {
		ob.item("LastEvaluatedKey", fdyno.Item(o.LastEvaluatedKey))
	}
	ob.capacity(o.ConsumedCapacity)
	return ob.close()
}

func (o batchGetItemOutput) appendJSON(dst []byte) []byte {
	ob := object{b: dst}
	ob.key("Responses")
	if o.Responses == nil {
		ob.b = append(ob.b, "null"...)
	} else {
		ob.b = append(ob.b, '{')
		for i, name := range slices.Sorted(maps.Keys(o.Responses)) { // encoding/json's order
			if i > 0 {
				ob.b = append(ob.b, ',')
			}
			ob.b = avjson.AppendString(ob.b, name)
			ob.b = append(ob.b, ':')
			ob.b = appendItems(ob.b, o.Responses[name])
		}
		ob.b = append(ob.b, '}')
	}
	ob.marshal("UnprocessedKeys", o.UnprocessedKeys)
	ob.capacities(o.ConsumedCapacity)
	return ob.close()
}

func (o transactGetItemsOutput) appendJSON(dst []byte) []byte {
	ob := object{b: dst}
	ob.key("Responses")
	if o.Responses == nil {
		ob.b = append(ob.b, "null"...)
		return ob.close()
	}
	ob.b = append(ob.b, '[')
	for i, r := range o.Responses {
		if i > 0 {
			ob.b = append(ob.b, ',')
		}
		ib := object{b: ob.b}
		if r.Item != nil {
			ib.item("Item", fdyno.Item(*r.Item))
		}
		ob.b = ib.close()
	}
	ob.b = append(ob.b, ']')
	ob.capacities(o.ConsumedCapacity)
	return ob.close()
}

// appendItems appends a JSON array of items (null for nil).
func appendItems(dst []byte, items []wireItem) []byte {
	if items == nil {
		return append(dst, "null"...)
	}
	return appendArray(dst, items, appendWireItem)
}

func appendWireItem(dst []byte, it wireItem) []byte { return appendItem(dst, fdyno.Item(it)) }
