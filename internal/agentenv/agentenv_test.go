package agentenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAgentEnvDetect: each variable alone marks an agent's process, an empty one does not, a
// longer name is another variable; Strip removes them all; Mark adds AI_AGENT only where none is.
func TestDetect(t *testing.T) {
	for _, v := range Vars {
		got, ok := Env{"HOME=/h", v.Name + "=x"}.Detect()
		assert.True(t, ok, v.Name)
		assert.Equal(t, v.Name, got.Name)
		_, ok = Env{"HOME=/h", v.Name + "="}.Detect()
		assert.False(t, ok, "%s empty", v.Name)
		assert.Empty(t, Strip([]string{v.Name + "=1"}), v.Name)
	}
	_, ok := Env{"CLAUDECODE_X=1", "XAI_AGENT=1"}.Detect()
	assert.False(t, ok, "a longer name is not the variable")
	assert.Equal(t, []string{"A=1", "AI_AGENT=mcp"}, Mark([]string{"A=1"}, "mcp"))
	assert.Equal(t, []string{"CLAUDECODE=1"}, Mark([]string{"CLAUDECODE=1"}, "mcp"))
}
