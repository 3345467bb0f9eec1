package gitrepo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApplyDeltaRejectsCorruption: a delta that reaches outside its base or promises another size
// is an error, not a panic or a wrong object.
func TestApplyDeltaRejectsCorruption(t *testing.T) {
	base := []byte("hello world")
	good := []byte{11, 5, 0x91, 6, 5} // copy 5 bytes from offset 6
	out, err := applyDelta(base, good)
	require.NoError(t, err)
	assert.Equal(t, "world", string(out))
	for name, d := range map[string][]byte{
		"wrong base size": {10, 5, 0x91, 6, 5},
		"copy past base":  {11, 5, 0x91, 8, 5},
		"short result":    {11, 6, 0x91, 6, 5},
		"truncated":       {11, 5, 0x91},
		"insert past end": {11, 5, 4, 'a'},
		"reserved op":     {11, 5, 0},
	} {
		_, err := applyDelta(base, d)
		assert.Error(t, err, name)
	}
}
