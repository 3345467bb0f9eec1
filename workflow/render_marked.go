package workflow

import (
	"fmt"
	"slices"
	"strings"
)

// MermaidMarked is the definition's diagram with a workflow's path marked: the phases it went
// through (visited), the phase it is in (current), and the path itself as a numbered comment,
// since a state diagram cannot style single edges.
func (d *Definition) MermaidMarked(path []string, current string) string {
	var b strings.Builder
	b.WriteString(d.Mermaid())
	if len(path) > 0 {
		fmt.Fprintf(&b, "    %%%% path taken: %s\n", strings.Join(path, " → "))
	}
	b.WriteString("    classDef visited fill:#cde8c9,stroke:#2d6a2d\n")
	b.WriteString("    classDef current fill:#f9d77e,stroke:#a6740b,stroke-width:3px\n")
	var visited []string
	for _, p := range path {
		if id := mermaidID(p); p != current && !slices.Contains(visited, id) {
			visited = append(visited, id)
		}
	}
	if len(visited) > 0 {
		fmt.Fprintf(&b, "    class %s visited\n", strings.Join(visited, ","))
	}
	if current != "" {
		fmt.Fprintf(&b, "    class %s current\n", mermaidID(current))
	}
	return b.String()
}
