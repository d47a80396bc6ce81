package server

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/fdyno/fdyno"
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
	o.b = appendString(o.b, k)
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

func (o *object) capacity(cc *consumedCapacity) {
	if cc == nil {
		return
	}
	raw, err := json.Marshal(cc)
	if err != nil {
		return // cannot happen: plain strings and numbers
	}
	o.key("ConsumedCapacity")
	o.b = append(o.b, raw...)
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
		ob.b = append(ob.b, '[')
		for i, it := range *o.Items {
			if i > 0 {
				ob.b = append(ob.b, ',')
			}
			ob.b = appendItem(ob.b, fdyno.Item(it))
		}
		ob.b = append(ob.b, ']')
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
			ob.b = appendString(ob.b, name)
			ob.b = append(ob.b, ':')
			ob.b = appendItems(ob.b, o.Responses[name])
		}
		ob.b = append(ob.b, '}')
	}
	raw, err := json.Marshal(o.UnprocessedKeys)
	if err != nil {
		raw = []byte("null") // cannot happen: items encode themselves
	}
	ob.key("UnprocessedKeys")
	ob.b = append(ob.b, raw...)
	if o.ConsumedCapacity != nil {
		raw, err := json.Marshal(o.ConsumedCapacity)
		if err == nil { // cannot fail: plain strings and numbers
			ob.key("ConsumedCapacity")
			ob.b = append(ob.b, raw...)
		}
	}
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
	if o.ConsumedCapacity != nil {
		raw, err := json.Marshal(o.ConsumedCapacity)
		if err == nil { // cannot fail: plain strings and numbers
			ob.key("ConsumedCapacity")
			ob.b = append(ob.b, raw...)
		}
	}
	return ob.close()
}

// appendItems appends a JSON array of items (null for nil).
func appendItems(dst []byte, items []wireItem) []byte {
	if items == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendItem(dst, fdyno.Item(it))
	}
	return append(dst, ']')
}
