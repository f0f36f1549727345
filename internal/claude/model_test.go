package claude

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name   string
		family string
		major  int
		minor  int
		binds  bool
	}{
		{"claude-fable-5-1", "fable", 5, 1, true},
		{"claude-mythos-5-1", "mythos", 5, 1, false},
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
	} {
		if got := Unread(c.from, c.to, c.fa, c.ta, c.platform); got != c.want {
			t.Errorf("%s -> %s: got %q, want %q", c.from, c.to, got, c.want)
		}
	}
}
