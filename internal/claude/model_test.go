package claude

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name   string
		family string
		major  int
		minor  int
		binds  bool
	}{
		{"claude-fable-5-1", "fable", 5, 1, true},
		{"claude-mythos-5-1", "mythos", 5, 1, true},
		{"claude-fable-5-2", "fable", 5, 2, true},
		{"claude-opus-5-5", "opus", 5, 5, true},
		{"claude-sonnet-5", "sonnet", 5, 0, false},
		{"claude-sonnet-5-20260901", "sonnet", 5, 0, false},
		{"anthropic.claude-opus-5-5-v1:0", "opus", 5, 5, true},
		{"claude-3-7-sonnet-latest", "sonnet", 3, 7, false},
		{"claude-sonnet-4-6", "sonnet", 4, 6, false},
		{"claude-haiku-5-5@20261001", "haiku", 5, 5, true},
		{"gpt-5", "", -1, 0, true},
	} {
		m := Parse(c.name)
		if m.Family != c.family || m.Major != c.major || m.Minor != c.minor || m.BindsPrefix() != c.binds {
			t.Errorf("%s: got %+v binds=%v, want %s %d.%d binds=%v", c.name, m, m.BindsPrefix(), c.family, c.major, c.minor, c.binds)
		}
	}
}

func TestUnread(t *testing.T) {
	for _, c := range []struct {
		from, to, fa, ta, platform, want string
	}{
		{"claude-sonnet-5-5", "claude-sonnet-5-5", "org-a", "org-b", "anthropic", "claude-sonnet-5-5 thinking blocks are bound to the account that produced them (org-a, not org-b)"},
		{"claude-sonnet-5-5", "claude-sonnet-5-5", "org-a", "org-a", "anthropic", ""},
		{"claude-sonnet-5-5", "claude-sonnet-5-5", "", "org-b", "anthropic", ""},
		{"claude-haiku-5-5", "claude-opus-5-5", "org-a", "org-a", "anthropic", ""},
		{"claude-sonnet-5-5", "claude-opus-5-5", "org-a", "org-a", "anthropic", "claude-sonnet-5-5 thinking blocks are bound to that model; claude-opus-5-5 drops them"},
		{"claude-opus-5-5", "claude-fable-5-1", "", "", "anthropic", ""},
		{"claude-opus-5-5", "claude-fable-5-1", "", "", "bedrock", "claude-fable-5-1 reads claude-opus-5-5 thinking blocks only on the Claude API, not on bedrock"},
		{"claude-fable-5-1", "claude-opus-5-5", "", "", "anthropic", "claude-opus-5-5 does not read claude-fable-5-1 thinking blocks"},
		{"claude-mythos-5-1", "claude-opus-5-5", "", "", "vertex", "claude-opus-5-5 does not read claude-mythos-5-1 thinking blocks"},
		{"claude-sonnet-4-6", "claude-opus-5-5", "a", "b", "anthropic", ""},
		{"claude-fable-5-2", "claude-mythos-5-2", "", "", "anthropic", ""},
		{"claude-fable-5-2", "claude-fable-5-2", "", "", "vertex", ""},
		{"claude-fable-5-2", "claude-fable-5-1", "", "", "anthropic", "only Fable 5.2 and Mythos 5.2 read claude-fable-5-2 thinking blocks; claude-fable-5-1 drops them"},
		{"claude-fable-5-2", "claude-opus-5-5", "", "", "anthropic", "only Fable 5.2 and Mythos 5.2 read claude-fable-5-2 thinking blocks; claude-opus-5-5 drops them"},
		{"claude-opus-5-5", "claude-haiku-5-5", "", "", "anthropic", "claude-haiku-5-5 drops thinking blocks of another model (claude-opus-5-5) as model_binding_mismatch"},
		{"claude-haiku-5-5", "claude-haiku-5-5", "", "", "anthropic", ""},
		{"claude-haiku-5-5", "claude-sonnet-4-6", "", "", "anthropic", ""},
		{"claude-fable-5-1", "claude-fable-5-1", "111122223333", "444455556666", "bedrock", "Bedrock's organisation check removes thinking blocks minted by another AWS account (111122223333, not 444455556666)"},
		{"claude-fable-5-1", "claude-fable-5-1", "111122223333", "111122223333", "bedrock", ""},
		{"claude-fable-5-1", "claude-fable-5-1", "111122223333", "444455556666", "anthropic", ""},
	} {
		if got := Unread(c.from, c.to, "", c.fa, c.ta, c.platform); got != c.want {
			t.Errorf("%s -> %s: got %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

// Bedrock's organisation check removes blocks minted in a Claude app, on
// Bedrock only.
func TestUnreadClaudeApp(t *testing.T) {
	for _, c := range []struct{ from, to, platform, want string }{
		{"claude-code", "bedrock", "claude-opus-5-5", "Bedrock's organisation check removes thinking blocks minted in a Claude app (claude-code)"},
		{"claude.ai", "bedrock-mantle", "claude-opus-5-5", "Bedrock's organisation check removes thinking blocks minted in a Claude app (claude.ai)"},
		{"claude-code", "anthropic", "claude-opus-5-5", ""},
		{"anthropic", "bedrock", "claude-opus-5-5", ""},
	} {
		if got := Unread("claude-opus-5-5", c.platform, c.from, "", "", c.to); got != c.want {
			t.Errorf("%s -> %s: got %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

func TestEnforcementAndBlockBinding(t *testing.T) {
	for _, c := range []struct {
		name                string
		every, everyBedrock bool
		takes               bool
	}{
		{"claude-fable-5-2", true, true, true},
		{"claude-mythos-5-2", true, true, true},
		{"claude-mythos-5-1", true, false, true},
		{"claude-fable-5-1", false, false, true},
		{"claude-opus-5-5", false, false, true},
		{"claude-sonnet-5-5", false, false, true},
		{"claude-haiku-5-5", false, false, true},
		{"claude-sonnet-5", false, false, false},
		{"claude-haiku-4-5", false, false, false},
		{"gpt-5", false, false, true},
	} {
		m := Parse(c.name)
		if m.EnforcesEveryAccount("anthropic") != c.every || m.EnforcesEveryAccount("bedrock") != c.everyBedrock || m.TakesBlockBinding() != c.takes {
			t.Errorf("%s: every=%v (bedrock %v) takes=%v", c.name, m.EnforcesEveryAccount("anthropic"), m.EnforcesEveryAccount("bedrock"), m.TakesBlockBinding())
		}
	}
}

// Parse reads every name as the field-by-field reading with strconv.Atoi
// does, and allocates nothing for a lower-case name.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"claude-opus-5-5", "anthropic.claude-sonnet-5-20260901-v1:0", "claude-3-7-sonnet-latest", "claude-+5-+1", "claude-99999999999999999999-opus", "CLAUDE-Opus-5", "claude-", "claude--5..1@x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := Parse(name), parseAtoi(name); got != want {
			t.Fatalf("Parse(%q) = %+v, want %+v", name, got, want)
		}
	})
}

// parseAtoi is Parse as first written: strings.FieldsFunc and strconv.Atoi.
func parseAtoi(name string) Model {
	m := Model{Major: -1}
	s := strings.ToLower(name)
	i := strings.Index(s, "claude-")
	if i < 0 {
		return m
	}
	parts := strings.FieldsFunc(s[i+len("claude-"):], func(r rune) bool { return r == '-' || r == '.' || r == '@' || r == ':' })
	for k, p := range parts {
		n, err := strconv.Atoi(p)
		switch {
		case err != nil:
			if m.Family == "" {
				m.Family = p
			}
		case m.Major < 0 && len(p) <= 2:
			m.Major = n
			if k+1 < len(parts) && len(parts[k+1]) <= 2 {
				if mi, err := strconv.Atoi(parts[k+1]); err == nil {
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

func TestParseAllocs(t *testing.T) {
	n := testing.AllocsPerRun(100, func() { Parse("anthropic.claude-sonnet-5-20260901-v1:0") })
	assert.Zero(t, n)
}
