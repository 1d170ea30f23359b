package results

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaJSON is the JSON Schema of the document (docs/results.md describes
// it field by field).
//
//go:embed schema.json
var SchemaJSON []byte

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("results.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("results.schema.json")
})

// Validate checks a results file's bytes against the JSON Schema.
func Validate(data []byte) error {
	schema, err := compiled()
	if err != nil {
		return fmt.Errorf("the results schema does not compile: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotResults, err)
	}
	return schema.Validate(v)
}
