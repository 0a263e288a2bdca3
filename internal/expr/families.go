package expr

// family is a function family of a file of its own: the names it binds,
// the names of the calls it binds (which the evaluator dispatches on),
// and its binder and evaluator.
type family struct {
	binds, evals map[string]bool
	bind         func(*binder, *Call) (node, error)
	eval         func(*evaluator, *callN, []value) (value, error)
}

// families are set in init: their binders bind arguments through call,
// which reads families.
var families []family

func init() {
	families = []family{
		{scalarNames, scalarEvals, (*binder).bindScalarFunc, (*evaluator).scalarFunction}, // before codec: decode's CASE form
		{regexFuncs, regexFuncs, (*binder).bindRegexFunc, (*evaluator).regexFunction},
		{extractNames, map[string]bool{"yearofweek": true, "second_fraction": true}, (*binder).bindExtract, (*evaluator).extractFunction},
		{codecFuncs, codecFuncs, (*binder).bindCodecFunc, (*evaluator).codecFunction},
		{map[string]bool{"format_number": true}, map[string]bool{"format_number": true}, (*binder).bindFormatNumber, (*evaluator).formatNumberFunction},
		{nestedFuncs, map[string]bool{"size": true, "element_at": true, "array_contains": true, "map_keys": true, "map_values": true},
			(*binder).bindNestedFunc, (*evaluator).nestedFunction},
		{mathFuncs, mathFuncs, (*binder).bindMathFunc, (*evaluator).mathFunction},
		{jsonNames, jsonNames, (*binder).bindGetJSONObject, (*evaluator).getJSONObjectFunction},
		{urlNames, urlNames, (*binder).bindParseURL, (*evaluator).parseURLFunction},
		{tryNames, tryNames, (*binder).bindTryFunc, (*evaluator).tryFunction},
		{formNames, formNames, (*binder).bindFormFunc, (*evaluator).formFunction},
		{bitFuncs, bitEvals, (*binder).bindBitFunc, (*evaluator).bitFunction},
		{makeTimestampNames, makeTimestampNames, (*binder).bindMakeTimestamp, (*evaluator).makeTimestampFunction},
		{toJSONNames, toJSONNames, (*binder).bindToJSON, (*evaluator).toJSONFunction},
		{schemaOfJSONNames, nil, (*binder).bindSchemaOfJSON, nil},
		{fromJSONNames, fromJSONNames, (*binder).bindFromJSON, (*evaluator).fromJSONFunction},
		{refusedBinds, nil, (*binder).bindRefused, nil},
		{collectionFuncs, collectionEvals, (*binder).bindCollectionFunc, (*evaluator).collectionFunction},
		{hofFuncs, hofFuncs, (*binder).bindHOF, (*evaluator).hofFunction},
		{formatNames, formatNames, (*binder).bindFormatString, (*evaluator).formatStringFunction},
		{toNumberNames, toNumberNames, (*binder).bindToNumber, (*evaluator).toNumberFunction},
	}
}

// extractNames are the names extract.go binds.
var extractNames = map[string]bool{"extract": true, "date_part": true, "datepart": true}

// jsonNames are the names jsonpath.go binds.
var jsonNames = map[string]bool{"get_json_object": true}
