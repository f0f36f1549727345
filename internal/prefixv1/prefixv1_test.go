package prefixv1_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reasonreplay/replay/internal/prefixv1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameAsVersionOneBuilds: the hashes are those the last build with the
// first definition (the parent of commit 98a9494) computed with
// replay.PrefixHashBefore for the same bodies and cuts: Messages (system
// with an escape, tools, thinking, a number written 1.0), Gemini contents,
// Responses input with unknown members, and a body with no conversation.
func TestSameAsVersionOneBuilds(t *testing.T) {
	for _, c := range []struct {
		file string
		n    int
		want string
	}{
		{"a.json", 0, "sha256:ef802ea3e4c856e3e602701aee6590e101ad3c03099b4adad8aca7c7d1e2964d"},
		{"a.json", 1, "sha256:9bf35d42e62019f67be2ec63317b9b2188d073534001b66ceed0ffa343d8c3c2"},
		{"a.json", 2, "sha256:e2092eaaeee4d14078f4bda583c36616153ebea838ba17a7b22470af03f42fb0"},
		{"a.json", 3, "sha256:8e86fde11a05aa7b9b0fb859323ce48746592265faf8ddc7e172a353e941fe31"},
		{"a.json", 9, "sha256:7f197b1f54c8660480f188fb1c998a951de9229aec380ded9a1ee3d0384b3688"},
		{"b.json", 0, "sha256:85a61a03c7ddb9f7f4f85d0084d3ad0c92cc7f803d705a2b77d9311a24fcff9d"},
		{"b.json", 1, "sha256:27f995848f8c37bfc716ad4fd698069c69dff7ae3f93d52b7e4070ed3c1801f1"},
		{"b.json", 2, "sha256:b2b951a14c17619a1bcca87d2f33376ad30549bb5f0b71c79bbbad9d1294a209"},
		{"b.json", 3, "sha256:b2b951a14c17619a1bcca87d2f33376ad30549bb5f0b71c79bbbad9d1294a209"},
		{"b.json", 9, "sha256:b2b951a14c17619a1bcca87d2f33376ad30549bb5f0b71c79bbbad9d1294a209"},
		{"c.json", 0, "sha256:7f1459b263f2d47360e0d3506d75b274a722713d7b78be4814ac19df0b8dbfaa"},
		{"c.json", 1, "sha256:7173d9e1634f7e466013bbc9b725322abee1f551debfc1468123d3c3d7f9df3d"},
		{"c.json", 2, "sha256:55f239596ff7ae55eb0c2ecf38a1838d4955b95c832bf1073d2b4fa68a2cf6b8"},
		{"c.json", 3, "sha256:55f239596ff7ae55eb0c2ecf38a1838d4955b95c832bf1073d2b4fa68a2cf6b8"},
		{"c.json", 9, "sha256:55f239596ff7ae55eb0c2ecf38a1838d4955b95c832bf1073d2b4fa68a2cf6b8"},
		{"d.json", 0, "sha256:a0eaa0a5f1e2d5714221c9daf7112caced6b2cdd0b0d1563e034c6c77410c42f"},
		{"d.json", 1, "sha256:a0eaa0a5f1e2d5714221c9daf7112caced6b2cdd0b0d1563e034c6c77410c42f"},
		{"d.json", 2, "sha256:a0eaa0a5f1e2d5714221c9daf7112caced6b2cdd0b0d1563e034c6c77410c42f"},
		{"d.json", 3, "sha256:a0eaa0a5f1e2d5714221c9daf7112caced6b2cdd0b0d1563e034c6c77410c42f"},
		{"d.json", 9, "sha256:a0eaa0a5f1e2d5714221c9daf7112caced6b2cdd0b0d1563e034c6c77410c42f"},
	} {
		body, err := os.ReadFile(filepath.Join("testdata", c.file))
		require.NoError(t, err)
		got, ok := prefixv1.HashBefore(body, c.n)
		require.True(t, ok)
		assert.Equal(t, c.want, got, "%s before %d", c.file, c.n)
	}
	for _, bad := range []string{`[]`, `{"a":1,"a":2}`, `{`, ``} {
		_, ok := prefixv1.HashBefore([]byte(bad), 0)
		assert.False(t, ok, bad)
	}
	_, ok := prefixv1.HashBefore([]byte(`{}`), -1)
	assert.False(t, ok)
}
