package workflow

import (
	"fmt"
	"maps"
	"slices"
)

// BuiltinVersion names the built-in definitions as compiled into this binary; a transition decided
// under a built-in records "builtin:<type>@<BuiltinVersion>". Bump it when a built-in changes.
const BuiltinVersion = "3"

// builtins are the workflow types compiled in. They are values: nothing registers or replaces
// them at run time, and callers must treat the pointers handed out as read-only.
var builtins = func() map[string]*Definition {
	m := map[string]*Definition{}
	for _, d := range []*Definition{&featureDefinition, &debugDefinition, &refactorDefinition, &oneshotDefinition, &discoveryDefinition, &loopDefinition} {
		d.ID = "builtin:" + d.Type + "@" + BuiltinVersion
		m[d.Type] = d
	}
	return m
}()

// Builtin returns a built-in definition (read-only).
func Builtin(workflowType string) (*Definition, bool) {
	d, ok := builtins[workflowType]
	return d, ok
}

// IsBuiltin reports whether the type is one of the built-in workflow types.
func IsBuiltin(workflowType string) bool {
	_, ok := builtins[workflowType]
	return ok
}

// BuiltinTypes lists the built-in workflow types, sorted.
func BuiltinTypes() []string { return slices.Sorted(maps.Keys(builtins)) }

// Definitions is the set of workflow types a caller works with: the built-ins, possibly with
// limits adjusted, and the types a repository defines. It is a value built once by the caller
// (from the protected base branch) and passed down; the zero value holds the built-ins.
type Definitions struct {
	byType map[string]*Definition
}

// NewDefinitions returns the built-ins with defs added or (for a built-in's own type, e.g. with
// other limits) replacing them. Every definition is validated; a repository type may not take a
// built-in's name unless it is that built-in (same ID).
func NewDefinitions(defs ...*Definition) (Definitions, error) {
	m := make(map[string]*Definition, len(builtins)+len(defs))
	for t, d := range builtins {
		m[t] = d
	}
	for _, d := range defs {
		if b, builtin := builtins[d.Type]; builtin && b.ID != d.ID {
			return Definitions{}, fmt.Errorf("workflow type %q is built in: a repository definition may extend it under another name, not replace it", d.Type)
		}
		if err := d.Validate(); err != nil {
			return Definitions{}, err
		}
		m[d.Type] = d
	}
	return Definitions{byType: m}, nil
}

// Lookup returns the definition of a workflow type.
func (ds Definitions) Lookup(workflowType string) (*Definition, bool) {
	if ds.byType == nil {
		return Builtin(workflowType)
	}
	d, ok := ds.byType[workflowType]
	return d, ok
}

// Types lists the types, sorted.
func (ds Definitions) Types() []string {
	if ds.byType == nil {
		return BuiltinTypes()
	}
	return slices.Sorted(maps.Keys(ds.byType))
}

// Clone returns a deep enough copy of d to change its limits without touching the original.
func (d *Definition) Clone() *Definition {
	c := *d
	c.Phases = append([]Phase(nil), d.Phases...)
	c.Transitions = append([]Transition(nil), d.Transitions...)
	return &c
}

// UnknownTypeError is a workflow whose type has no definition where the caller looked: the fold
// cannot place its events, so the workflow keeps its stored state and does not move.
type UnknownTypeError struct {
	Type string
}

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("no definition for workflow type %q", e.Type)
}
