package server

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/fdyno/fdyno"
)

// tags.go: TagResource, UntagResource and ListTagsOfResource, through the
// library's Table.TagResource, UntagResource and ListTags; the tags live
// in the table's metadata and go with it. The resource is named by its
// table ARN, which DynamoDB checks part by part:
//
//   - not an ARN (no "arn:" prefix): ValidationException;
//   - another service's ARN, or another account's: AccessDeniedException
//     (the caller may not act on it);
//   - a DynamoDB ARN of something other than a table, or of another
//     region: ValidationException;
//   - a table that does not exist: ResourceNotFoundException, "Requested
//     resource not found: ResourcArn: <arn> not found" (DynamoDB's
//     spelling).
//
// ListTagsOfResource returns at most tagsPageSize tags per call, in key
// order, and a NextToken to continue.

// accountID is the AWS account of the ARNs the server reports.
const accountID = "000000000000"

// tagsPageSize is the most tags one ListTagsOfResource returns.
const tagsPageSize = 10

var errAccessDenied = errType{nsCoral + "AccessDeniedException", 400}

// resourceTable returns the table named by a tagging request's
// ResourceArn, checked as DynamoDB checks it.
func (s *Server) resourceTable(c *call, arn *string, op string) (*fdyno.Table, error) {
	if arn == nil {
		return nil, missing("resourceArn")
	}
	a := *arn
	var v constraints
	if len(a) < 1 || len(a) > maxTableARNLength {
		v.add("resourceArn", &a, "Member must have length between 1 and 1024")
		return nil, v.err()
	}
	parts := strings.SplitN(a, ":", 6)
	if len(parts) < 6 || parts[0] != "arn" {
		return nil, validation("Invalid TableArn: Invalid ResourceArn provided as input " + a)
	}
	service, region, account, resource := parts[2], parts[3], parts[4], parts[5]
	denied := &apiError{typ: errAccessDenied, msg: "User is not authorized to perform: dynamodb:" + op + " on resource: " + a}
	if service != "dynamodb" || account != accountID {
		return nil, denied
	}
	name, ok := strings.CutPrefix(resource, "table/")
	if !ok || strings.Contains(name, "/") || !validTableName(name) {
		return nil, validation("Invalid TableArn: " + a + " is not a DynamoDB table ARN")
	}
	if region != s.region {
		return nil, validation("Invalid TableArn: " + a + " names the region " + strconv.Quote(region) + ", this endpoint serves " + strconv.Quote(s.region))
	}
	c.table = name
	notFound := &apiError{typ: errResourceNotFound, msg: "Requested resource not found: ResourcArn: " + a + " not found"}
	if len(name) < minTableNameLength || len(name) > maxTableNameLength {
		return nil, notFound
	}
	t, err := s.table(name)
	if err != nil {
		if ae := toAPIError(err); ae.typ == errResourceNotFound {
			return nil, notFound
		}
		return nil, err
	}
	return t, nil
}

// checkTagMembers applies the Tag shape's constraints: keys of 1 to 128
// characters, values of at most 256.
func checkTagMembers(field string, tags []fdyno.Tag) error {
	var v constraints
	for i, t := range tags {
		at := field + "." + strconv.Itoa(i+1) + ".member."
		switch n := len([]rune(t.Key)); {
		case n < 1:
			v.add(at+"key", &t.Key, "Member must have length greater than or equal to 1")
		case n > fdyno.MaxTagKeyLength:
			v.add(at+"key", &t.Key, "Member must have length less than or equal to 128")
		}
		if len([]rune(t.Value)) > fdyno.MaxTagValueLength {
			v.add(at+"value", &t.Value, "Member must have length less than or equal to 256")
		}
	}
	return v.err()
}

type tagResourceInput struct {
	ResourceArn *string
	Tags        []fdyno.Tag
}

type emptyOutput struct{}

// prepare checks the tags; the table, named by ResourceArn, is looked up
// by resourceTable, which answers for it as DynamoDB does.
func (in *tagResourceInput) prepare(*call) (string, error) {
	if in.Tags == nil {
		return "", missing("tags")
	}
	return "", checkTagMembers("tags", in.Tags)
}

func (s *Server) tagResource(c *call, in *tagResourceInput, _ *fdyno.Table) (any, error) {
	t, err := s.resourceTable(c, in.ResourceArn, "TagResource")
	if err != nil {
		return nil, err
	}
	return emptyOutput{}, t.TagResource(s.db, in.Tags)
}

type untagResourceInput struct {
	ResourceArn *string
	TagKeys     []string
}

// prepare checks the tag keys (see tagResourceInput.prepare).
func (in *untagResourceInput) prepare(*call) (string, error) {
	if in.TagKeys == nil {
		return "", missing("tagKeys")
	}
	var v constraints
	for i, k := range in.TagKeys {
		if n := len([]rune(k)); n < 1 || n > fdyno.MaxTagKeyLength {
			v.add("tagKeys."+strconv.Itoa(i+1)+".member", &k, "Member must have length between 1 and 128")
		}
	}
	return "", v.err()
}

func (s *Server) untagResource(c *call, in *untagResourceInput, _ *fdyno.Table) (any, error) {
	t, err := s.resourceTable(c, in.ResourceArn, "UntagResource")
	if err != nil {
		return nil, err
	}
	return emptyOutput{}, t.UntagResource(s.db, in.TagKeys)
}

type listTagsInput struct {
	ResourceArn *string
	NextToken   *string
}

type listTagsOutput struct {
	Tags      []fdyno.Tag
	NextToken string `json:",omitempty"`
}

// prepare has nothing to check before resourceTable.
func (in *listTagsInput) prepare(*call) (string, error) { return "", nil }

func (s *Server) listTagsOfResource(c *call, in *listTagsInput, _ *fdyno.Table) (any, error) {
	t, err := s.resourceTable(c, in.ResourceArn, "ListTagsOfResource")
	if err != nil {
		return nil, err
	}
	tags, err := t.ListTags(s.db)
	if err != nil {
		return nil, err
	}
	// The NextToken is the base64url encoding of the last key returned;
	// the next page starts after it, so tags added or removed between
	// pages are seen or not as they sort, never twice.
	if in.NextToken != nil {
		after, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || len(after) == 0 || len(after) > 4*fdyno.MaxTagKeyLength {
			return nil, validation("Invalid NextToken")
		}
		i, found := slices.BinarySearchFunc(tags, string(after), func(a fdyno.Tag, k string) int { return strings.Compare(a.Key, k) })
		if found {
			i++
		}
		tags = tags[i:]
	}
	out := listTagsOutput{Tags: tags}
	if out.Tags == nil {
		out.Tags = []fdyno.Tag{}
	}
	if len(tags) > tagsPageSize {
		out.Tags = tags[:tagsPageSize]
		out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(tags[tagsPageSize-1].Key))
	}
	return out, nil
}
