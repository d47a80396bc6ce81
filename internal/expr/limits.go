package expr

// Expression limits (the DynamoDB service quotas page, "Expression
// parameters").
const (
	// MaxExpressionLength is the longest expression string, in bytes;
	// 4096 is allowed and 4097 rejected.
	MaxExpressionLength = 4096
	// MaxPlaceholderLength is the longest #name or :value key, sigil
	// included.
	MaxPlaceholderLength = 255
	// MaxExpressionOperators is the most operators an expression may
	// hold.
	MaxExpressionOperators = 300
	// MaxInOperands is the most operands on the right of IN.
	MaxInOperands = 100
	// MaxPathDepth is the most elements of a document path, the same as
	// the item nesting limit.
	MaxPathDepth = 32
)

// Reasons, in DynamoDB's words. The expression kind is prefixed by
// [Error] ("Invalid ConditionExpression: ...").
const (
	reasonExprEmpty          = "The expression can not be empty;"
	reasonExprTooLong        = "Expression size has exceeded the maximum allowed size; expression size: "
	reasonTooManyOperators   = "The expression contains too many operators; operator count: "
	reasonNameUndefined      = "An expression attribute name used in the document path is not defined; attribute name: "
	reasonValueUndefined     = "An expression attribute value used in expression is not defined; attribute value: "
	reasonReservedWord       = "Attribute name is a reserved keyword; reserved keyword: "
	reasonRedundantParens    = "The expression has redundant parentheses;"
	reasonPathTooDeep        = "The document path has too many nesting levels; nesting levels: "
	reasonInvalidFunction    = "Invalid function name; function: "
	reasonFunctionInCond     = "The function is not allowed in a condition expression; function: "
	reasonPathRequired       = "Operator or function requires a document path; operator or function: "
	reasonOperandNotDistinct = "The first operand must be distinct from the remaining operands for this operator or function; operator: "
	reasonTooManyIn          = "The IN operator is provided with too many operands; number of operands: "
	reasonBetweenTypes       = "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: "
	reasonBetweenOrder       = "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: "
	reasonAttributeTypeName  = "Invalid attribute type name found; type: "

	reasonFunctionInUpdate = "The function is not allowed in a update expression; function: "
	reasonClauseTwice      = "The \"%s\" section can only be used once in an update expression;"

	// ReasonUpdatePathInvalid is an update path whose parent is missing
	// or of the wrong kind.
	ReasonUpdatePathInvalid = "The document path provided in the update expression is invalid for update"
	// ReasonUpdateOperandType is an update operand of the wrong type.
	ReasonUpdateOperandType = "An operand in the update expression has an incorrect data type"
	// ReasonUpdateMissingAttr is a SET value naming a missing attribute.
	ReasonUpdateMissingAttr = "The provided expression refers to an attribute that does not exist in the item"
	// ReasonFunctionMisused is a function used where it is not allowed.
	ReasonFunctionMisused = "The function is not allowed to be used this way in an expression; function: "
	// ReasonOperandType is an operand of the wrong kind or type.
	ReasonOperandType = "Incorrect operand type for operator or function; operator or function: "
	// ReasonOperandCount is a function given the wrong number of operands.
	ReasonOperandCount = "Incorrect number of operands for operator or function; operator or function: "
)

// kindUpdate is UpdateExpression's kind.
const kindUpdate = "UpdateExpression"

// newError returns the *Error for a rejected expression of the given kind.
func newError(kind, reason string) *Error { return &Error{Kind: kind, Reason: reason} }
