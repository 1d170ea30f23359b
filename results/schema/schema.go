// Package schema checks results files against their JSON Schema.
//
// It is a package of its own, imported by tests and tools only, so that
// the sbgo binary does not link the JSON Schema library: that library
// compiles every draft's metaschema in its init, which every start of
// sbgo would pay for (docs/performance.md, "Start-up").
package schema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSON is the JSON Schema of the document (docs/results.md describes
// it field by field).
//
//go:embed schema.json
var JSON []byte

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSON))
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
		return fmt.Errorf("not JSON: %w", err)
	}
	return schema.Validate(v)
}
