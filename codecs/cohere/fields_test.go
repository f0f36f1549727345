package cohere

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fields lists every member of event, each once: an event read by matching
// gets every value a full read would.
func TestEventFieldsCoverEvent(t *testing.T) {
	var e event
	fs := e.fields()
	rt := reflect.TypeOf(e)
	assert.Equal(t, rt.NumField(), len(fs))
	seen := map[uintptr]bool{}
	for _, p := range fs {
		seen[reflect.ValueOf(p).Pointer()-reflect.ValueOf(&e).Pointer()] = true
	}
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		assert.Equal(t, reflect.String, f.Type.Kind(), f.Name)
		assert.True(t, seen[f.Offset], "%s is not in fields", f.Name)
	}
}
