// Package awsav converts between fdyno's values and the attribute values
// of the AWS SDK for Go v2 (github.com/aws/aws-sdk-go-v2/service/dynamodb/types),
// so that code written against the SDK moves to fdyno without rewriting
// its items by hand. It lives apart from package fdyno so that the library
// does not depend on the AWS SDK.
//
// # Conversions
//
// [Item] and [Value] take SDK attribute values to fdyno's; [AttributeValueMap]
// and [AttributeValue] go the other way; [Items] and [AttributeValueMaps]
// convert the item lists of Query, Scan and BatchGetItem. Every one of
// DynamoDB's ten types converts, at any nesting depth DynamoDB allows.
// Numbers stay decimal text and are never rounded through a float.
//
// The conversions are exact:
//
//  1. fdyno → SDK → fdyno gives back an [fdyno.Value.Equal] value.
//  2. SDK → fdyno → SDK gives back the same attribute value up to the
//     equivalences DynamoDB itself applies: a number is spelled the way
//     DynamoDB returns it ("1e3" comes back as "1000", "-0" as "0"), the
//     members of a set come back in fdyno's canonical order (sets have no
//     order), and an empty or nil B, M or L comes back empty and non-nil.
//
// # Errors
//
// Both directions check DynamoDB's rules for attribute values, the rules
// of [fdyno.Item.Validate]: a value of no type (a nil interface, a nil
// member pointer, an SDK *types.UnknownUnionMember, the zero fdyno.Value),
// NULL false, an illegal number, an empty set or one with duplicate
// members, an empty or too long attribute name, and nesting deeper than
// [fdyno.MaxNestingDepth] (which also stops a map that contains itself).
// The error is a *[fdyno.ValidationError] naming the attribute path, so
// errors.Is(err, fdyno.ErrValidation) holds. No input makes a conversion
// panic.
//
// # Expressions
//
// [FromExpression] takes what the SDK's expression builder
// (github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression) built, with its
// placeholder values converted, and fills fdyno's request types from it.
//
// The functions of this package are safe for concurrent use; the values
// they return share nothing with their input, except the strings.
package awsav

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
)

// Reasons for rejecting a value, in DynamoDB's words.
const (
	reasonEmptyValue = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	reasonNullFalse  = "One or more parameter values were invalid: Null attribute value types must have the value of true"
	reasonNesting    = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
)

// Item converts an SDK item (such as GetItemOutput.Item or the Key of a
// request) to an fdyno.Item. A nil map gives a nil Item. The error is a
// *[fdyno.ValidationError]; see the package documentation for the rules.
func Item(m map[string]types.AttributeValue) (fdyno.Item, error) {
	if m == nil {
		return nil, nil
	}
	it, err := fromMap(m, 0)
	if err != nil {
		return nil, err
	}
	if err := it.Validate(); err != nil {
		return nil, err
	}
	return it, nil
}

// Items converts a list of SDK items, such as QueryOutput.Items.
func Items(ms []map[string]types.AttributeValue) ([]fdyno.Item, error) {
	if ms == nil {
		return nil, nil
	}
	out := make([]fdyno.Item, len(ms))
	for i, m := range ms {
		it, err := Item(m)
		if err != nil {
			return nil, atIndex(err, i)
		}
		out[i] = it
	}
	return out, nil
}

// Value converts one SDK attribute value to an fdyno.Value, checked as a
// top-level attribute's value. The error is a *[fdyno.ValidationError].
func Value(av types.AttributeValue) (fdyno.Value, error) {
	v, err := fromAV(av, 1)
	if err != nil {
		return fdyno.Value{}, err
	}
	if err := v.Validate(); err != nil {
		return fdyno.Value{}, err
	}
	return v, nil
}

// AttributeValueMap converts an fdyno.Item to an SDK item, for a request's
// Item or Key or to compare with SDK code. A nil Item gives a nil map. The
// item is first checked with [fdyno.Item.Validate], whose error it returns.
func AttributeValueMap(it fdyno.Item) (map[string]types.AttributeValue, error) {
	if it == nil {
		return nil, nil
	}
	if err := it.Validate(); err != nil {
		return nil, err
	}
	return toMap(it), nil
}

// AttributeValueMaps converts a list of fdyno items, such as
// QueryOutput.Items, to SDK items.
func AttributeValueMaps(its []fdyno.Item) ([]map[string]types.AttributeValue, error) {
	if its == nil {
		return nil, nil
	}
	out := make([]map[string]types.AttributeValue, len(its))
	for i, it := range its {
		m, err := AttributeValueMap(it)
		if err != nil {
			return nil, atIndex(err, i)
		}
		out[i] = m
	}
	return out, nil
}

// AttributeValue converts one fdyno.Value to an SDK attribute value. The
// value is first checked with [fdyno.Value.Validate], whose error it
// returns; the zero Value is an error.
func AttributeValue(v fdyno.Value) (types.AttributeValue, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	return toAV(v), nil
}

// fromMap converts the contents of an item (depth 0) or of an M value at
// depth, whose elements sit at depth+1.
func fromMap(m map[string]types.AttributeValue, depth int) (fdyno.Item, error) {
	it := make(fdyno.Item, len(m))
	for k, av := range m {
		v, err := fromAV(av, depth+1)
		if err != nil {
			return nil, under(err, k)
		}
		it[k] = v
	}
	return it, nil
}

// fromAV converts av, a value at nesting level depth (1 for a top-level
// attribute). Rules that fdyno's Validate checks on the result (numbers,
// sets, names) are left to it; fromAV rejects what an fdyno.Value cannot
// hold at all, and stops at the nesting limit before it could recurse
// without end.
func fromAV(av types.AttributeValue, depth int) (fdyno.Value, error) {
	if depth > fdyno.MaxNestingDepth {
		return fdyno.Value{}, invalid(reasonNesting)
	}
	switch av := av.(type) {
	case *types.AttributeValueMemberS:
		if av != nil {
			return fdyno.S(av.Value), nil
		}
	case *types.AttributeValueMemberN:
		if av != nil {
			return fdyno.N(av.Value), nil
		}
	case *types.AttributeValueMemberB:
		if av != nil {
			return fdyno.B(av.Value), nil
		}
	case *types.AttributeValueMemberBOOL:
		if av != nil {
			return fdyno.Bool(av.Value), nil
		}
	case *types.AttributeValueMemberNULL:
		if av != nil {
			if !av.Value {
				return fdyno.Value{}, invalid(reasonNullFalse)
			}
			return fdyno.Null(), nil
		}
	case *types.AttributeValueMemberM:
		if av != nil {
			it, err := fromMap(av.Value, depth)
			if err != nil {
				return fdyno.Value{}, err
			}
			return fdyno.M(it), nil
		}
	case *types.AttributeValueMemberL:
		if av != nil {
			l := make([]fdyno.Value, len(av.Value))
			for i, e := range av.Value {
				v, err := fromAV(e, depth+1)
				if err != nil {
					return fdyno.Value{}, underIndex(err, i)
				}
				l[i] = v
			}
			return fdyno.L(l...), nil
		}
	case *types.AttributeValueMemberSS:
		if av != nil {
			return fdyno.SS(av.Value...), nil
		}
	case *types.AttributeValueMemberNS:
		if av != nil {
			return fdyno.NS(av.Value...), nil
		}
	case *types.AttributeValueMemberBS:
		if av != nil {
			return fdyno.BS(av.Value...), nil
		}
	case *types.UnknownUnionMember:
		if av != nil {
			return fdyno.Value{}, invalid("Supplied AttributeValue has an unknown datatype " + strconv.Quote(av.Tag) + ", must contain exactly one of the supported datatypes")
		}
	}
	return fdyno.Value{}, invalid(reasonEmptyValue)
}

func toMap(it fdyno.Item) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, len(it))
	for k, v := range it {
		m[k] = toAV(v)
	}
	return m
}

// toAV converts a valid v; Validate has ruled out the zero Value, bad
// numbers and cycles.
func toAV(v fdyno.Value) types.AttributeValue {
	switch v.Type() {
	case fdyno.TypeS:
		return &types.AttributeValueMemberS{Value: v.S()}
	case fdyno.TypeN:
		return &types.AttributeValueMemberN{Value: v.N()}
	case fdyno.TypeB:
		return &types.AttributeValueMemberB{Value: v.B()}
	case fdyno.TypeBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Bool()}
	case fdyno.TypeNULL:
		return &types.AttributeValueMemberNULL{Value: true}
	case fdyno.TypeM:
		return &types.AttributeValueMemberM{Value: toMap(v.M())}
	case fdyno.TypeL:
		l := make([]types.AttributeValue, len(v.L()))
		for i, e := range v.L() {
			l[i] = toAV(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case fdyno.TypeSS:
		return &types.AttributeValueMemberSS{Value: v.SS()}
	case fdyno.TypeNS:
		return &types.AttributeValueMemberNS{Value: v.NS()}
	case fdyno.TypeBS:
		return &types.AttributeValueMemberBS{Value: v.BS()}
	}
	return nil // unreachable after Validate
}

func invalid(reason string) error {
	return &fdyno.ValidationError{Reason: reason}
}

// under prefixes the path of a *fdyno.ValidationError from fromAV with the
// attribute name it sits under.
func under(err error, name string) error {
	ve, ok := err.(*fdyno.ValidationError) // fromAV's only error type
	if !ok {
		return err
	}
	switch {
	case ve.Path == "":
		ve.Path = name
	case strings.HasPrefix(ve.Path, "["):
		ve.Path = name + ve.Path
	default:
		ve.Path = name + "." + ve.Path
	}
	return ve
}

// underIndex prefixes the path of a *fdyno.ValidationError from fromAV
// with the list index it sits under.
func underIndex(err error, i int) error {
	ve, ok := err.(*fdyno.ValidationError)
	if !ok {
		return err
	}
	idx := "[" + strconv.Itoa(i) + "]"
	switch {
	case ve.Path == "":
		ve.Path = idx
	case strings.HasPrefix(ve.Path, "["):
		ve.Path = idx + ve.Path
	default:
		ve.Path = idx + "." + ve.Path
	}
	return ve
}

// atIndex names the item of a list that err is about; errors.As still
// finds the *fdyno.ValidationError.
func atIndex(err error, i int) error {
	return fmt.Errorf("awsav: item %d: %w", i, err)
}
