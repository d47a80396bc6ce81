package awsav_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/fdyno/fdyno"
	"github.com/fdyno/fdyno/awsav"
	"github.com/google/go-cmp/cmp"
)

// sdkReader builds SDK attribute values of every shape, valid or not,
// from fuzz bytes: each value starts with an opcode byte.
type sdkReader struct{ b []byte }

func (r *sdkReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *sdkReader) bytes() []byte {
	n := int(r.byte() % 8)
	n = min(n, len(r.b))
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *sdkReader) item() map[string]types.AttributeValue {
	n := int(r.byte() % 5)
	m := make(map[string]types.AttributeValue, n)
	for range n {
		m[string(r.bytes())] = r.value()
	}
	return m
}

func (r *sdkReader) value() types.AttributeValue {
	if len(r.b) == 0 {
		return &types.AttributeValueMemberS{}
	}
	switch r.byte() % 13 {
	case 0:
		return &types.AttributeValueMemberS{Value: string(r.bytes())}
	case 1:
		return &types.AttributeValueMemberN{Value: string(r.bytes())}
	case 2:
		return &types.AttributeValueMemberB{Value: r.bytes()}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: r.byte()&1 == 1}
	case 4:
		return &types.AttributeValueMemberNULL{Value: r.byte()&1 == 1}
	case 5:
		return &types.AttributeValueMemberM{Value: r.item()}
	case 6:
		l := make([]types.AttributeValue, r.byte()%4)
		for i := range l {
			l[i] = r.value()
		}
		return &types.AttributeValueMemberL{Value: l}
	case 7:
		ss := make([]string, r.byte()%4)
		for i := range ss {
			ss[i] = string(r.bytes())
		}
		return &types.AttributeValueMemberSS{Value: ss}
	case 8:
		ns := make([]string, r.byte()%4)
		for i := range ns {
			ns[i] = string(r.bytes())
		}
		return &types.AttributeValueMemberNS{Value: ns}
	case 9:
		bs := make([][]byte, r.byte()%4)
		for i := range bs {
			bs[i] = r.bytes()
		}
		return &types.AttributeValueMemberBS{Value: bs}
	case 10:
		return nil
	case 11:
		var nilN *types.AttributeValueMemberN
		return nilN
	default:
		return &types.UnknownUnionMember{Tag: string(r.bytes())}
	}
}

// FuzzItem converts SDK items of any shape: the conversion never panics,
// fails only with a *fdyno.ValidationError, and what it accepts survives
// fdyno → SDK → fdyno unchanged.
func FuzzItem(f *testing.F) {
	f.Add([]byte{1, 0, 0, 2, '4', '2'})                                    // {"": N 42}
	f.Add([]byte{2, 1, 'a', 8, 2, 1, '1', 3, '1', '.', '0', 1, 'b', 4, 1}) // NS with a duplicate by value
	f.Add([]byte{1, 1, 'm', 5, 2, 1, 'x', 6, 2, 3, 1, 4, 0, 1, 'y', 10})   // nested M and L, NULL false, nil
	f.Add([]byte{1, 1, 'k', 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 6, 1, 0, 1, 'z'})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &sdkReader{b: data}
		in := r.item()
		it, err := awsav.Item(in)
		if err != nil {
			var ve *fdyno.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, fdyno.ErrValidation) {
				t.Fatalf("Item() error %v (%T) is not a *fdyno.ValidationError", err, err)
			}
			return
		}
		if err := it.Validate(); err != nil {
			t.Fatalf("Item() accepted an item that fdyno rejects: %v", err)
		}
		out, err := awsav.AttributeValueMap(it)
		if err != nil {
			t.Fatalf("AttributeValueMap(Item()) failed: %v", err)
		}
		back, err := awsav.Item(out)
		if err != nil {
			t.Fatalf("Item(AttributeValueMap(Item())) failed: %v", err)
		}
		if diff := cmp.Diff(it, back); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}
