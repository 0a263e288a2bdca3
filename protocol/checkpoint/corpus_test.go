package checkpoint

// conformance is the shared corpus of real tables, relative to this package.
const conformance = "../../../shared/conformance"
