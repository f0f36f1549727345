package schema_test

import (
	"fmt"

	"github.com/reasonreplay/replay/schema"
)

func ExampleValidate() {
	err := schema.Validate(schema.Item, []byte(`{"type":"reasoning.encrypted","format":"anthropic-claude-v1"}`))
	fmt.Println(err)
	err = schema.Validate(schema.Item, []byte(`{"type":"reasoning.encrypted","data":"EmwKAhgB","format":"anthropic-claude-v1"}`))
	fmt.Println(err)
	// Output:
	// schema: not a valid item document
	//   /: missing properties: 'data'
	// <nil>
}
