package server_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fdyno/fdyno/server"
)

// A policy file names policies by access key ID or account; one that
// uses something the server does not evaluate is refused, never read as
// "allow all".
func ExampleLoadPolicies() {
	policies, err := server.LoadPolicies(strings.NewReader(`{
	  "team-a-ci": {"Version": "2012-10-17", "Statement": [
	    {"Effect": "Allow", "Action": ["dynamodb:Get*", "dynamodb:Query"],
	     "Resource": ["arn:aws:dynamodb:*:111122223333:table/Orders", "arn:aws:dynamodb:*:111122223333:table/Orders/index/*"]},
	    {"Effect": "Deny", "Action": "dynamodb:Delete*", "Resource": "*"}]}
	}`))
	fmt.Println(len(policies["team-a-ci"]), err)

	_, err = server.LoadPolicies(strings.NewReader(`{"team-b": {"Version": "2012-10-17", "Statement":
	  {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*",
	   "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}}}`))
	fmt.Println(errors.Is(err, server.ErrPolicy))
	fmt.Println(err)
	// Output:
	// 1 <nil>
	// true
	// team-b, policy 1: server: invalid policy: statement 1: Condition: unsupported condition operator "IpAddress"
}
