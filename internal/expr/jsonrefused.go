package expr

// Functions of Delta's allow list this engine refuses by name, with the
// reason: json_tuple is a generator (one output column per name), which
// Spark refuses outside SELECT, so no generated column or CHECK can hold
// it; the XPath functions evaluate XPath 1.0 over a document parsed by
// the JDK's javax.xml (Xalan's string values, number formatting and
// parser), which this engine does not reproduce.

// refusedNames are the names jsonrefused.go binds, with why.
var refusedNames = map[string]string{
	"json_tuple": "json_tuple is a generator (one output column per name), which Spark refuses outside a SELECT list (UNSUPPORTED_GENERATOR.OUTSIDE_SELECT): a generated column or CHECK constraint cannot hold it",
}

func init() {
	for _, n := range []string{"xpath", "xpath_boolean", "xpath_double", "xpath_number", "xpath_float", "xpath_int", "xpath_long", "xpath_short", "xpath_string"} {
		refusedNames[n] = n + " evaluates XPath 1.0 with the JDK's javax.xml (Xalan), whose document parsing, string values and number formatting this engine does not reproduce; not supported"
	}
	for n := range refusedNames {
		refusedBinds[n] = true
	}
}

// refusedBinds are the names of refusedNames, for families.
var refusedBinds = map[string]bool{}

// bindRefused refuses the call, naming the function and why.
func (b *binder) bindRefused(e *Call) (node, error) {
	return nil, errAt(e, "%s", refusedNames[e.Name])
}
