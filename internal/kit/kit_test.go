package kit

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tidwall/gjson"
)

// Index reads what strconv.Atoi, then gjson, read before its digits fast
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
		n, ok := Index(raw)
		wn, wok := old(raw)
		assert.Equal(t, wok, ok, raw)
		assert.Equal(t, wn, n, raw)
	}
}
