package gemini

import (
	"strconv"
	"strings"

	"github.com/reasonreplay/replay/internal/jsonw"
	"github.com/reasonreplay/replay/internal/view"
)

// Patch and Strip read a model message in one walk with jsonw's Step
// functions (each part's members, and a call's, read where they stand)
// and write one output buffer. They read as gjson reads (the first member
// of a name, names compared with their escapes decoded, a call's name and
// id as gjson's String gives them) and write what sjson wrote: a
// signature replaces the value of the part's thoughtSignature or goes last
// in the part, a part that is not an object becomes
// {"thoughtSignature":...}, and a part that is an array cannot take one.

// Names a patch or a strip looks for in a part.
const (
	mFunctionCall     = "functionCall"
	mText             = "text"
	mThought          = "thought"
	mThoughtSignature = "thoughtSignature"
)

// partScan is what one walk over a part object finds, as offsets in the
// message: the first member of each name (at < 0 when absent; for the
// signature, its name too), the name and id of the call when the first
// functionCall member is an object, the name of the first member that is
// not thought nor thoughtSignature (kindAt < 0 when none), the number of
// members, and where the part ends.
type partScan struct {
	callAt                int
	nameAt, nameEnd       int
	idAt, idEnd           int
	textAt                int
	thoughtAt, thoughtEnd int
	sigName, sigAt        int
	sigEnd                int
	kindAt, kindEnd       int
	members               int
	end                   int
}

// scanPart walks the part object that starts at s[at] once; ok is false
// when it is not valid JSON there.
func scanPart(s string, at int) (f partScan, ok bool) {
	f = partScan{callAt: -1, nameAt: -1, idAt: -1, textAt: -1, thoughtAt: -1, sigAt: -1, kindAt: -1}
	pos := at + 1
	for {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			f.end = nameEnd
			return f, nameAt >= 0
		}
		f.members++
		name := s[nameAt:nameEnd]
		end := -2
		aside := false
		switch {
		case jsonw.StrIs(name, mFunctionCall):
			if f.callAt < 0 {
				f.callAt = vAt
				if s[vAt] == '{' {
					end = f.scanCall(s, vAt)
				}
			}
		case jsonw.StrIs(name, mText):
			if f.textAt < 0 {
				f.textAt = vAt
			}
		case jsonw.StrIs(name, mThought):
			aside = true
			if f.thoughtAt < 0 {
				f.thoughtAt = vAt
				end = jsonw.StepValue(s, vAt)
				f.thoughtEnd = end
			}
		case jsonw.StrIs(name, mThoughtSignature):
			aside = true
			if f.sigAt < 0 {
				f.sigName, f.sigAt = nameAt, vAt
				end = jsonw.StepValue(s, vAt)
				f.sigEnd = end
			}
		}
		if !aside && f.kindAt < 0 {
			f.kindAt, f.kindEnd = nameAt, nameEnd
		}
		if end == -2 {
			end = jsonw.StepValue(s, vAt)
		}
		if end < 0 {
			return f, false
		}
		pos = end
	}
}

// scanCall walks the functionCall object that starts at s[at] for its
// name and id, and returns where it ends (-1 when it is not valid JSON).
func (f *partScan) scanCall(s string, at int) int {
	pos := at + 1
	for {
		nameAt, nameEnd, vAt := jsonw.StepMember(s, pos)
		if vAt < 0 {
			if nameAt < 0 {
				return -1
			}
			return nameEnd
		}
		end := jsonw.StepValue(s, vAt)
		if end < 0 {
			return -1
		}
		if name := s[nameAt:nameEnd]; f.nameAt < 0 && jsonw.StrIs(name, "name") {
			f.nameAt, f.nameEnd = vAt, end
		} else if f.idAt < 0 && jsonw.StrIs(name, "id") {
			f.idAt, f.idEnd = vAt, end
		}
		pos = end
	}
}

// thought reports whether the part's thought member reads true as
// gjson's Bool reads it.
func (f *partScan) thought(s string) bool {
	return f.thoughtAt >= 0 && truthy(s[f.thoughtAt:f.thoughtEnd])
}

// truthy is gjson's Result.Bool of the raw JSON value v: true; a string
// that strconv.ParseBool reads as true once lower-cased; a number other
// than 0.
func truthy(v string) bool {
	switch v[0] {
	case 't':
		return true
	case '"':
		s := v[1 : len(v)-1]
		if strings.IndexByte(s, '\\') >= 0 {
			s = string(jsonw.AppendStr(nil, v))
		}
		b, _ := strconv.ParseBool(strings.ToLower(s))
		return b
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, _ := strconv.ParseFloat(v, 64)
		return f != 0
	}
	return false
}

// gstring returns what gjson's Result.String gives for the raw JSON value
// v ("" for none): a string's value, "true" or "false", "" for null, an
// integer as written and any other number as strconv formats its value,
// an object or array as written. A value it must decode or format is
// written in scratch: the result is valid until scratch is written again.
func gstring(v string, scratch *[]byte) string {
	if v == "" {
		return ""
	}
	switch c := v[0]; {
	case c == '"':
		if strings.IndexByte(v, '\\') < 0 {
			return v[1 : len(v)-1]
		}
		*scratch = jsonw.AppendStr((*scratch)[:0], v)
		return view.String(*scratch)
	case c == 't':
		return "true"
	case c == 'f':
		return "false"
	case c == 'n':
		return ""
	case c == '{' || c == '[':
		return v
	}
	i := 0
	if v[0] == '-' {
		i++
	}
	for ; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			f, _ := strconv.ParseFloat(v, 64)
			*scratch = strconv.AppendFloat((*scratch)[:0], f, 'f', -1, 64)
			return view.String(*scratch)
		}
	}
	return v
}
