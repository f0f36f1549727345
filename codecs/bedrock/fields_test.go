package bedrock

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fields lists every string member of event, each once: an event read by
// matching gets every value a full read would.
func TestEventFieldsCoverEvent(t *testing.T) {
	var e event
	fs := e.fields()
	seen := map[uintptr]bool{}
	for _, p := range fs {
		seen[reflect.ValueOf(p).Pointer()-reflect.ValueOf(&e).Pointer()] = true
	}
	rt := reflect.TypeOf(e)
	strs := 0
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		if f.Type.Kind() != reflect.String {
			continue
		}
		strs++
		assert.True(t, seen[f.Offset], "%s is not in fields", f.Name)
	}
	assert.Equal(t, strs, len(fs))
}
