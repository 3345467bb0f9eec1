package hookrun

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTestIndex writes a base of entries and a head of the given lines, and reads the head back.
func writeTestIndex(t *testing.T, c *hookCache, base map[string]indexEntry, head map[string]*indexEntry) *indexFile {
	t.Helper()
	gen, err := c.writeBase(base)
	require.NoError(t, err)
	require.NoError(t, c.writeHead(stampSettled, "{1 2 3 4}|{5 6 7 8}", gen, encodeHead(head)))
	x, ok := c.loadIndex()
	require.True(t, ok)
	return x
}

func TestIndexFileHeadOverBase(t *testing.T) {
	c := &hookCache{dir: t.TempDir()}
	base := map[string]indexEntry{
		"login":  {commit: "c1", branch: "login"},
		"signup": {commit: "c2", branch: "signup"},
		"moved":  {commit: "c3", branch: "login"},
		"gone":   {commit: "c4", branch: "login"},
	}
	for i := range 500 { // many buckets in use
		base["other-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i%5)] = indexEntry{commit: "c", branch: "b" + strings.Repeat("z", i%40)}
	}
	x := writeTestIndex(t, c, base, map[string]*indexEntry{
		"moved":   {commit: "c5", branch: "signup", ino: 7, loose: "1:7:41:9"},
		"gone":    nil,
		"arrived": {commit: "c6", branch: "login", ino: 8},
	})
	assert.Equal(t, "{1 2 3 4}|{5 6 7 8}", x.stamp, "a stamp with spaces is read whole")

	got, ok := x.featuresOn([]string{"login", "signup", "nobody", "login"})
	require.True(t, ok)
	assert.Equal(t, map[string][]string{
		"login":  {"arrived", "login"},
		"signup": {"moved", "signup"},
		"nobody": nil,
	}, got)

	loose, ok := x.looseInodes()
	require.True(t, ok)
	assert.Equal(t, map[string]uint64{"moved": 7, "arrived": 8}, loose)

	all, ok := x.entries()
	require.True(t, ok)
	assert.Len(t, all, len(base))
	assert.Equal(t, indexEntry{commit: "c5", branch: "signup", ino: 7, loose: "1:7:41:9"}, all["moved"])
	assert.NotContains(t, all, "gone")

	// One line changed: the others as they were, in order.
	changed, ok := parseIndexFile(append([]byte(hookIndexVersion+" "), []byte("x")...), "")
	assert.False(t, ok, "a header without its sum")
	assert.Nil(t, changed)
	head := x.withEntries(map[string]*indexEntry{"login": {commit: "c7", branch: "login", ino: 9}, "arrived": nil, "aaa": {commit: "c8", branch: "b"}})
	assert.Equal(t, "aaa c8 - - b\narrived -\ngone -\nlogin c7 9 - login\nmoved c5 7 1:7:41:9 signup\n", string(head))
}

func TestIndexFileDamageIsNotTaken(t *testing.T) {
	base := map[string]indexEntry{"login": {commit: "c1", branch: "login"}, "signup": {commit: "c2", branch: "signup"}}
	for name, damage := range map[string]func(c *hookCache){
		"base removed": func(c *hookCache) { require.NoError(t, os.Remove(c.indexBaseFile())) },
		"base cut short": func(c *hookCache) {
			b, _ := os.ReadFile(c.indexBaseFile())
			require.NoError(t, os.WriteFile(c.indexBaseFile(), b[:len(b)-5], 0o644))
		},
		"a base line changed": func(c *hookCache) {
			b, _ := os.ReadFile(c.indexBaseFile())
			require.NoError(t, os.WriteFile(c.indexBaseFile(), []byte(strings.Replace(string(b), "login c1 login", "login c1 signu", 1)), 0o644))
		},
		"another base": func(c *hookCache) {
			_, err := c.writeBase(base)
			require.NoError(t, err)
		},
		"directory garbled": func(c *hookCache) {
			b, _ := os.ReadFile(c.indexBaseFile())
			b[indexBaseHeaderLen+3] = 'g'
			require.NoError(t, os.WriteFile(c.indexBaseFile(), b, 0o644))
		},
	} {
		c := &hookCache{dir: t.TempDir()}
		x := writeTestIndex(t, c, base, nil)
		_, ok := x.featuresOn([]string{"login"})
		require.True(t, ok, name)
		damage(c)
		_, ok = x.featuresOn([]string{"login"})
		assert.False(t, ok, name)
		_, ok = x.entries()
		assert.False(t, ok, name)
	}

	c := &hookCache{dir: t.TempDir()}
	writeTestIndex(t, c, base, map[string]*indexEntry{"login": {commit: "c1", branch: "login", ino: 3}})
	b, err := os.ReadFile(c.indexFile())
	require.NoError(t, err)
	for name, head := range map[string]string{
		"cut short":   string(b[:len(b)-3]),
		"line lost":   strings.Replace(string(b), "login c1 3 - login\n", "", 1),
		"old version": strings.Replace(string(b), hookIndexVersion, "exarchos-hook-index 6", 1),
		"empty":       "",
	} {
		require.NoError(t, os.WriteFile(c.indexFile(), []byte(head), 0o644))
		_, ok := c.loadIndex()
		assert.False(t, ok, name)
	}
}
