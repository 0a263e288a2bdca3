// The conformance corpus is test data of the deltalite module, kept out of
// its module zip by this go.mod: some upstream table paths (a partition
// value that is an emoji) are not valid file names in a Go module zip.
module github.com/deltalite-go/deltalite/testdata/conformance

go 1.26
