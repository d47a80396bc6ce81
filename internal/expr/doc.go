// Package expr holds DynamoDB's expression languages (ConditionExpression,
// FilterExpression, KeyConditionExpression, UpdateExpression,
// ProjectionExpression) apart from fdyno's value model: the lexer,
// DynamoDB's reserved words, document paths (their printing and DynamoDB's
// overlap rule), the placeholders of a request ([Context], checked by
// [CheckContext]), and the parser ([Parser]) with its syntax tree
// ([Condition], [Operand]), its evaluation ([Test]), key conditions
// ([KeyCondition]), updates ([Update]) and projections ([Projection]). It
// is generic over the value type V; the few operations it needs on values
// are an [Ops] the caller supplies, and [Type] numbers the attribute types
// as the root package does. Of fdyno it imports only package
// internal/number (numbers are compared and added there), so the root
// package and the PartiQL package can both build on it.
//
// Errors are [*Error]: the expression kind and DynamoDB's reason. The root
// package turns them into its *ValidationError at the boundary, so users
// still see DynamoDB's message and reach it with errors.As on the root
// API.
//
// The grammar is restated from the DynamoDB developer guide's expressions
// chapter:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.html
package expr

// Error is an expression DynamoDB would reject. Its message is DynamoDB's:
// "Invalid <Kind>: <Reason>", or the reason alone when Kind is "".
type Error struct {
	// Kind names the expression as DynamoDB does in its messages, such as
	// "ConditionExpression" or "UpdateExpression"; "" for the messages
	// that name none (some of KeyConditionExpression's).
	Kind string
	// Path is the document path the error is about, for errors of
	// applying an update; "" otherwise.
	Path string
	// Reason is DynamoDB's wording of what is wrong.
	Reason string
}

func (e *Error) Error() string {
	if e.Kind == "" {
		return e.Reason
	}
	return "Invalid " + e.Kind + ": " + e.Reason
}
