// Package claude reads Claude model names, for the rules that depend on the
// model generation (prefix binding, cross-model and cross-account reading
// of thinking blocks). It is shared by package formats and codecs/anthropic.
package claude

import (
	"errors"
	"strconv"
	"strings"
)

// Model is a Claude model name read into its family and version.
type Model struct {
	// Family is "opus", "sonnet", "haiku", "fable", "mythos", ... ("" when
	// the name does not say).
	Family string
	// Major and Minor are the version; Major is -1 when the name has none.
	Major, Minor int
}

// Parse reads a model name such as "claude-opus-5-5", "claude-fable-5-1",
// "anthropic.claude-sonnet-5-20260901-v1:0" or "claude-3-7-sonnet-latest".
// A snapshot date is not a minor version. A name without "claude" gives
// Major -1.
func Parse(name string) Model {
	m := Model{Major: -1}
	s := strings.ToLower(name)
	i := strings.Index(s, "claude-")
	if i < 0 {
		return m
	}
	var fields [12]string
	parts := fields[:0]
	for p := range strings.FieldsFuncSeq(s[i+len("claude-"):], func(r rune) bool { return r == '-' || r == '.' || r == '@' || r == ':' }) {
		parts = append(parts, p)
	}
	for k, p := range parts {
		n, err := number(p)
		switch {
		case err != nil:
			if m.Family == "" {
				m.Family = p
			}
		case m.Major < 0 && len(p) <= 2:
			m.Major = n
			if k+1 < len(parts) && len(parts[k+1]) <= 2 {
				if mi, err := number(parts[k+1]); err == nil {
					m.Minor = mi
				}
			}
		}
		if m.Family != "" && m.Major >= 0 {
			break
		}
	}
	return m
}

// errNotNumber is number's error for a field that is not a number.
var errNotNumber = errors.New("not a number")

// number is strconv.Atoi for a name's field, without making an error
// value for a field that is plainly not a number (a family's name).
func number(p string) (int, error) {
	d := strings.TrimPrefix(p, "+")
	if d == "" || strings.TrimLeft(d, "0123456789") != "" {
		return 0, errNotNumber
	}
	return strconv.Atoi(p)
}

// AtLeast reports whether the version is major.minor or later.
func (m Model) AtLeast(major, minor int) bool {
	return m.Major > major || m.Major == major && m.Minor >= minor
}

// Is reports whether the model is family at exactly major.minor.
func (m Model) Is(family string, major, minor int) bool {
	return m.Family == family && m.Major == major && m.Minor == minor
}

// Known reports whether the name was read as a Claude model with a version.
func (m Model) Known() bool { return m.Major >= 0 }

// BindsPrefix reports whether the model checks that thinking blocks come
// back after the prefix that produced them: Claude 5.1 and later (a version
// floor: later models enforce it), Mythos 5.1 included (it enforces since
// the Fable 5.2 release), Sonnet 5 not (probed: no check). A name that is
// not read as a Claude model is assumed to bind.
func (m Model) BindsPrefix() bool {
	if !m.Known() {
		return true
	}
	return m.AtLeast(5, 1)
}

// EnforcesEveryAccount reports whether the model rejects a binding mismatch
// for every account, whatever its creation date: Fable and Mythos 5.2 and
// later ("the prefix check applies to every account"), and Mythos 5.1,
// which returns the error on all accounts where an unset
// prefix_mismatch_behavior means "error" (not on Bedrock, whose binding
// page says it records the mismatch without acting on it).
func (m Model) EnforcesEveryAccount(platform string) bool {
	switch {
	case m.Is("mythos", 5, 1):
		return !Bedrock(platform)
	case m.Family == "fable" || m.Family == "mythos":
		return m.AtLeast(5, 2)
	}
	return false
}

// TakesBlockBinding reports whether the model takes
// `thinking.block_binding` (the preserved-thinking models: Fable and Mythos
// 5.1 and later, Opus, Sonnet and Haiku 5.5 and later); any other Claude
// model refuses the member as an extra input. A name that is not read as a
// Claude model is assumed to take it.
func (m Model) TakesBlockBinding() bool {
	if !m.Known() {
		return true
	}
	switch m.Family {
	case "fable", "mythos":
		return m.AtLeast(5, 1)
	case "opus", "sonnet", "haiku":
		return m.AtLeast(5, 5)
	}
	return false
}

// Bedrock reports whether a platform name is Amazon Bedrock's.
func Bedrock(platform string) bool {
	p := strings.ToLower(platform)
	return p == "bedrock" || p == "bedrock-mantle" || p == "amazon-bedrock" || p == "aws"
}

// App reports whether a platform name is one of Anthropic's own apps
// (Claude Code, claude.ai), whose thinking blocks Bedrock's organisation
// check removes. A store or a session reader records such turns with
// Provenance.Provider "claude-code" or "claude.ai".
func App(platform string) bool {
	switch strings.ToLower(platform) {
	case "claude-code", "claude.ai", "claude-ai", "claude-app":
		return true
	}
	return false
}

// Unread returns why a thinking block minted by model from on platform
// fromPlatform with account fromAccount is not read by model to on
// platform toPlatform with account toAccount ("" when it is read, or when
// the facts are not known). The provider drops such a block silently.
// Accounts are compared only when both are known.
func Unread(from, to, fromPlatform, fromAccount, toAccount, toPlatform string) string {
	f, t := Parse(from), Parse(to)
	if !f.Known() {
		return ""
	}
	account := fromAccount != "" && toAccount != "" && fromAccount != toAccount
	switch {
	case Bedrock(toPlatform) && App(fromPlatform):
		return "Bedrock's organisation check removes thinking blocks minted in a Claude app (" + fromPlatform + ")"
	case Bedrock(toPlatform) && account && t.AtLeast(5, 1):
		return "Bedrock's organisation check removes thinking blocks minted by another AWS account (" + fromAccount + ", not " + toAccount + ")"
	case (f.Is("sonnet", 5, 5) || f.Is("haiku", 5, 5)) && account:
		return from + " thinking blocks are bound to the account that produced them (" + fromAccount + ", not " + toAccount + ")"
	case f.Is("sonnet", 5, 5) && t.Known() && !t.Is("sonnet", 5, 5):
		return from + " thinking blocks are bound to that model; " + to + " drops them"
	case f.Is("fable", 5, 2) && t.Known() && !t.Is("fable", 5, 2) && !t.Is("mythos", 5, 2):
		return "only Fable 5.2 and Mythos 5.2 read " + from + " thinking blocks; " + to + " drops them"
	case t.Is("haiku", 5, 5) && !f.Is("haiku", 5, 5):
		return to + " drops thinking blocks of another model (" + from + ") as model_binding_mismatch"
	case f.Is("opus", 5, 5) && (t.Is("fable", 5, 1) || t.Is("mythos", 5, 1)) && toPlatform != "" && toPlatform != "anthropic":
		return to + " reads " + from + " thinking blocks only on the Claude API, not on " + toPlatform
	case (f.Is("fable", 5, 1) || f.Is("mythos", 5, 1)) && t.Is("opus", 5, 5):
		return to + " does not read " + from + " thinking blocks"
	}
	return ""
}
