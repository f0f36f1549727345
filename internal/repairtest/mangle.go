package repairtest

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// typed selects the blocks whose "type" is typ.
func typed(typ string) func(gjson.Result) bool {
	return func(b gjson.Result) bool { return b.Get("type").Str == typ }
}

// onBlock applies f to the first element of the array at path in (the
// echo itself when in is "") that sel picks, or, when sel is nil, to the
// echo itself.
func onBlock(echo, in string, sel func(gjson.Result) bool, f func(block string) string) string {
	if sel == nil {
		return f(echo)
	}
	els := elements(echo, in)
	for i, el := range els {
		if sel(gjson.Parse(el)) {
			els[i] = f(el)
			return withElements(echo, in, els)
		}
	}
	return echo
}

// Edit changes the text at field of the block sel picks.
func Edit(name, in string, sel func(gjson.Result) bool, field string) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		return onBlock(echo, in, sel, func(b string) string {
			v := gjson.Get(b, field)
			if v.Type != gjson.String {
				return b
			}
			out, _ := sjson.Set(b, field, v.Str+" (edited)")
			return out
		})
	}}
}

// Truncate cuts the string at field of the block sel picks to half its
// length.
func Truncate(name, in string, sel func(gjson.Result) bool, field string) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		return onBlock(echo, in, sel, func(b string) string {
			v := gjson.Get(b, field)
			if v.Type != gjson.String || len(v.Str) < 2 {
				return b
			}
			out, _ := sjson.Set(b, field, v.Str[:len(v.Str)/2])
			return out
		})
	}}
}

// Delete removes the member at field of the block sel picks.
func Delete(name, in string, sel func(gjson.Result) bool, field string) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		return onBlock(echo, in, sel, func(b string) string { return deleteMember(b, field) })
	}}
}

// DeleteAll removes the member at field of every block sel picks.
func DeleteAll(name, in string, sel func(gjson.Result) bool, field string) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		els := elements(echo, in)
		for i, el := range els {
			if sel(gjson.Parse(el)) {
				els[i] = deleteMember(el, field)
			}
		}
		return withElements(echo, in, els)
	}}
}

// Drop removes the block sel picks.
func Drop(name, in string, sel func(gjson.Result) bool) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		els := elements(echo, in)
		for i, el := range els {
			if sel(gjson.Parse(el)) {
				return withElements(echo, in, slices.Delete(els, i, i+1))
			}
		}
		return echo
	}}
}

// DropAll removes every block sel picks.
func DropAll(name, in string, sel func(gjson.Result) bool) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		els := elements(echo, in)
		kept := els[:0:0]
		for _, el := range els {
			if !sel(gjson.Parse(el)) {
				kept = append(kept, el)
			}
		}
		return withElements(echo, in, kept)
	}}
}

// MoveLast moves the block sel picks to the end of its array.
func MoveLast(name, in string, sel func(gjson.Result) bool) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		els := elements(echo, in)
		for i, el := range els {
			if sel(gjson.Parse(el)) {
				if i == len(els)-1 {
					return echo
				}
				els = append(slices.Delete(els, i, i+1), el)
				return withElements(echo, in, els)
			}
		}
		return echo
	}}
}

// Dup sends the block sel picks twice, one after the other.
func Dup(name, in string, sel func(gjson.Result) bool) Mangle {
	return Mangle{Name: name, Apply: func(echo string) string {
		els := elements(echo, in)
		for i, el := range els {
			if sel(gjson.Parse(el)) {
				return withElements(echo, in, slices.Insert(els, i+1, el))
			}
		}
		return echo
	}}
}

// elements returns the raw elements of the array at path in of doc (doc
// itself when in is "").
func elements(doc, in string) []string {
	arr := gjson.Parse(doc)
	if in != "" {
		arr = arr.Get(in)
	}
	var out []string
	arr.ForEach(func(_, v gjson.Result) bool {
		out = append(out, v.Raw)
		return true
	})
	return out
}

// withElements returns doc with the array at path in holding els.
func withElements(doc, in string, els []string) string {
	arr := "[" + strings.Join(els, ",") + "]"
	if in == "" {
		return arr
	}
	out, err := sjson.SetRaw(doc, in, arr)
	if err != nil {
		panic(err)
	}
	return out
}

func deleteMember(doc, path string) string {
	if !gjson.Get(doc, path).Exists() {
		return doc
	}
	out, err := sjson.Delete(doc, path)
	if err != nil {
		panic(err)
	}
	return out
}

func setRaw(doc, path, raw string) string {
	out, err := sjson.SetRaw(doc, path, raw)
	if err != nil {
		panic(err)
	}
	return out
}

// Variant is a combination of mangles applied in order.
type Variant struct {
	Name string
	Echo string
}

// Variants returns the ways the API's echo is damaged: each mangle alone,
// every pair, all of them at once, and for each seed a random
// combination of two to five in a random order. A combination that
// leaves the echo as it was is left out.
func (a *API) Variants(echo string, seeds int) []Variant {
	var out []Variant
	seen := map[string]bool{echo: true}
	add := func(ms []Mangle) {
		e := echo
		names := make([]string, len(ms))
		for i, m := range ms {
			e = m.Apply(e)
			names[i] = m.Name
		}
		if seen[e] {
			return
		}
		seen[e] = true
		out = append(out, Variant{Name: strings.Join(names, " + "), Echo: e})
	}
	for _, m := range a.Mangles {
		add([]Mangle{m})
	}
	for i := range a.Mangles {
		for j := range a.Mangles {
			if i != j {
				add([]Mangle{a.Mangles[i], a.Mangles[j]})
			}
		}
	}
	add(a.Mangles)
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 21))
		n := 2 + r.IntN(4)
		perm := r.Perm(len(a.Mangles))
		var ms []Mangle
		for _, k := range perm[:min(n, len(perm))] {
			ms = append(ms, a.Mangles[k])
		}
		add(ms)
	}
	return out
}
