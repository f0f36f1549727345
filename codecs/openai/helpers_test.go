package openai_test

import "github.com/tidwall/gjson"

func validJSON(b []byte) bool { return gjson.ValidBytes(b) }
