package workflow

import "sort"

// registry holds the built-in workflow types. Definitions are values; Lookup hands out pointers
// to them, and callers must treat them as read-only.
var registry = map[string]*Definition{
	featureDefinition.Type:   &featureDefinition,
	debugDefinition.Type:     &debugDefinition,
	refactorDefinition.Type:  &refactorDefinition,
	oneshotDefinition.Type:   &oneshotDefinition,
	discoveryDefinition.Type: &discoveryDefinition,
	loopDefinition.Type:      &loopDefinition,
}

// Lookup returns the definition of a workflow type.
func Lookup(workflowType string) (*Definition, bool) {
	d, ok := registry[workflowType]
	return d, ok
}

// Types lists the workflow types, sorted.
func Types() []string {
	ts := make([]string, 0, len(registry))
	for t := range registry {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return ts
}
