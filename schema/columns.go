package schema

// The Delta column metadata keys of generated and identity columns
// (internal/colrules holds their rules).
const (
	GenerationExpressionKey  = "delta.generationExpression"
	IdentityStartKey         = "delta.identity.start"
	IdentityStepKey          = "delta.identity.step"
	IdentityAllowExplicitKey = "delta.identity.allowExplicitInsert"
	IdentityHighWaterMarkKey = "delta.identity.highWaterMark"
)
