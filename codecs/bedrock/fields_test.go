package bedrock

import (
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/tidwall/gjson"
)

// fields lists every string member of event, each once: an event read by
// matching gets every value a full read would.
func TestEventFieldsCoverEvent(t *testing.T) {
	var e event
	fs := e.fields()
	seen := map[uintptr]bool{}
	for _, p := range fs {
		seen[uintptr(unsafe.Pointer(p))-uintptr(unsafe.Pointer(&e))] = true
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

// index reads what strconv.Atoi, then gjson, read before its digits fast
// path.
func TestIndexAsBefore(t *testing.T) {
	old := func(raw string) (int, bool) {
		if len(raw) > 0 && len(raw) < 16 {
			if n, err := strconv.Atoi(raw); err == nil {
				return n, n >= 0
			}
		}
		idx := gjson.Parse(raw)
		if raw == "" || idx.Type != gjson.Number || idx.Int() < 0 || float64(idx.Int()) != idx.Num {
			return 0, false
		}
		return int(idx.Int()), true
	}
	for _, raw := range []string{"", "0", "7", "12", "999999999", "1000000000", "123456789012", "12345678901234567",
		"-1", "-0", "1.0", "2.5", "1e2", "1E+2", "null", `"3"`, "0x1", " 1"} {
		n, ok := index(raw)
		wn, wok := old(raw)
		assert.Equal(t, wok, ok, raw)
		assert.Equal(t, wn, n, raw)
	}
}
