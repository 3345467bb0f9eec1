package workflow

import (
	"fmt"
	"sort"
	"sync"
)

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

// extra holds the definitions a repository defines (.exarchos/workflows), registered by the caller
// that read them from the repository's own commits. The engine stays pure: it never reads them
// itself, it only accepts them.
var extra struct {
	sync.RWMutex
	defs map[string]*Definition
}

// Register adds repository-defined workflow types. A type may not take a built-in's name; a type
// registered again is replaced (the repository's definition changed).
func Register(defs ...*Definition) error {
	for _, d := range defs {
		if _, builtin := registry[d.Type]; builtin {
			return fmt.Errorf("workflow type %q is built in: a repository definition may extend it under another name, not replace it", d.Type)
		}
		if err := d.Validate(); err != nil {
			return err
		}
	}
	extra.Lock()
	defer extra.Unlock()
	if extra.defs == nil {
		extra.defs = map[string]*Definition{}
	}
	for _, d := range defs {
		extra.defs[d.Type] = d
	}
	return nil
}

// IsBuiltin reports whether the type is one of the built-in workflow types.
func IsBuiltin(workflowType string) bool {
	_, ok := registry[workflowType]
	return ok
}

// Lookup returns the definition of a workflow type, built in or registered.
func Lookup(workflowType string) (*Definition, bool) {
	if d, ok := registry[workflowType]; ok {
		return d, true
	}
	extra.RLock()
	defer extra.RUnlock()
	d, ok := extra.defs[workflowType]
	return d, ok
}

// Types lists the workflow types, built in and registered, sorted.
func Types() []string {
	ts := make([]string, 0, len(registry))
	for t := range registry {
		ts = append(ts, t)
	}
	extra.RLock()
	for t := range extra.defs {
		ts = append(ts, t)
	}
	extra.RUnlock()
	sort.Strings(ts)
	return ts
}

// BuiltinTypes lists the built-in workflow types, sorted.
func BuiltinTypes() []string {
	ts := make([]string, 0, len(registry))
	for t := range registry {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return ts
}
