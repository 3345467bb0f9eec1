package views

import (
	"fmt"
	"slices"
	"strings"
)

// The stack view: workflows whose branches are stacked on each other's (a feature started from
// another feature's branch), bottom first, with what blocks each. Which branch is on which is
// derived from git, never recorded: B is on A when the two branches share a commit the base does
// not have; A is below when its tip is in B's history (else when it started first).

// StackOptions are `git exarchos view stack [--all]`.
type StackOptions struct {
	All bool // finished workflows too
}

// StackEntry is one workflow in a stack.
type StackEntry struct {
	PipelineRow
	// On is the workflow this one's branch is stacked on ("" for the bottom, which is on the base);
	// Depth its place from the bottom (0).
	On    string `json:"on,omitempty"`
	Depth int    `json:"depth"`
	// WaitsFor are the workflows below it that have not completed: its pull request merges after
	// theirs.
	WaitsFor []string `json:"waitsFor,omitempty"`
}

// Stack is `view stack`: each stack of two or more workflows bottom first; workflows on the base
// alone are counted, not listed.
type Stack struct {
	Base   string         `json:"base"`
	Stacks [][]StackEntry `json:"stacks"`
	Alone  int            `json:"alone"`
}

// stackFacts is what the stack asks git: the best common ancestor of two commits and whether one
// is in the other's history.
type stackFacts interface {
	MergeBase(a, b string) (string, bool, error)
	IsAncestor(ancestor, descendant string) (bool, error)
	BranchTip(branch string) (string, error)
}

// ShowStack reads the pipeline (each workflow's blocker, as `transitions` evaluates it) and
// stacks its rows by their branches.
func ShowStack(r *Repo, o StackOptions, w Workflows) (*Stack, error) {
	p, err := ShowPipeline(r, PipelineOptions{All: o.All}, w)
	if err != nil {
		return nil, err
	}
	base := r.Base()
	return stackRows(p.Workflows, base.Ref, base.Commit, r.Facts(), r.IsFinal)
}

func stackRows(rows []PipelineRow, baseRef, baseTip string, git stackFacts, final func(typ, phase string) bool) (*Stack, error) {
	st := &Stack{Base: baseRef, Stacks: [][]StackEntry{}}
	type node struct {
		row   PipelineRow
		tip   string
		below []int // the workflows this one is on, nearest or not
	}
	var nodes []node
	for _, row := range rows {
		if row.Branch == "" {
			continue
		}
		tip, err := git.BranchTip(row.Branch)
		if err != nil || tip == "" {
			continue // a branch deleted after its merge: on nothing, nothing on it
		}
		if baseTip != "" {
			if in, err := git.IsAncestor(tip, baseTip); err == nil && in {
				continue // no commit of its own: nothing can be stacked on it
			}
		}
		nodes = append(nodes, node{row: row, tip: tip})
	}
	// A pair shares work when their best common ancestor is not in the base's history.
	for i := range nodes {
		for j := range nodes {
			if i >= j || nodes[i].row.Branch == nodes[j].row.Branch {
				continue
			}
			mb, ok, err := git.MergeBase(nodes[i].tip, nodes[j].tip)
			if err != nil {
				return nil, fmt.Errorf("stack %s and %s: %w", nodes[i].row.Branch, nodes[j].row.Branch, err)
			}
			if !ok {
				continue
			}
			if baseTip != "" {
				if onBase, err := git.IsAncestor(mb, baseTip); err != nil || onBase {
					continue
				}
			}
			lower, upper := i, j
			switch {
			case mb == nodes[i].tip:
			case mb == nodes[j].tip:
				lower, upper = j, i
			case nodes[j].row.Started.Before(nodes[i].row.Started):
				lower, upper = j, i
			}
			nodes[upper].below = append(nodes[upper].below, lower)
		}
	}
	// The nearest workflow below is the one with the most below it (the highest of those below).
	parent := make([]int, len(nodes))
	children := make([][]int, len(nodes))
	for i := range nodes {
		parent[i] = -1
		for _, b := range nodes[i].below {
			if parent[i] == -1 || len(nodes[b].below) > len(nodes[parent[i]].below) {
				parent[i] = b
			}
		}
		if parent[i] >= 0 {
			children[parent[i]] = append(children[parent[i]], i)
		}
	}
	for i := range nodes {
		if parent[i] != -1 {
			continue
		}
		if len(children[i]) == 0 {
			st.Alone++
			continue
		}
		var stack []StackEntry
		var walk func(n, depth int, waits []string)
		walk = func(n, depth int, waits []string) {
			e := StackEntry{PipelineRow: nodes[n].row, Depth: depth, WaitsFor: slices.Clone(waits)}
			if parent[n] >= 0 {
				e.On = nodes[parent[n]].row.Feature
			}
			stack = append(stack, e)
			if !final(e.Type, e.Phase) {
				waits = append(waits, e.Feature)
			}
			kids := slices.Clone(children[n])
			slices.SortFunc(kids, func(a, b int) int { return strings.Compare(nodes[a].row.Feature, nodes[b].row.Feature) })
			for _, k := range kids {
				walk(k, depth+1, waits)
			}
		}
		walk(i, 0, nil)
		st.Stacks = append(st.Stacks, stack)
	}
	slices.SortFunc(st.Stacks, func(a, b []StackEntry) int { return strings.Compare(a[0].Feature, b[0].Feature) })
	return st, nil
}

// Markdown is each stack as a nested list, bottom first, for the pull request's description.
func (s *Stack) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Stacked workflows (base %s)\n\n", s.Base)
	if len(s.Stacks) == 0 {
		b.WriteString("No workflow is stacked on another.\n")
	}
	for _, stack := range s.Stacks {
		for _, e := range stack {
			fmt.Fprintf(&b, "%s- **%s** (`%s`, %s)%s\n", strings.Repeat("  ", e.Depth), mdCell(e.Feature), mdCell(e.Branch), e.Phase, e.Holds())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Mermaid is the stacks as a graph, the base at the top.
func (s *Stack) Mermaid() string {
	var b strings.Builder
	b.WriteString("graph TD\n    base[\"" + mermaidText(s.Base) + "\"]\n")
	for _, stack := range s.Stacks {
		for _, e := range stack {
			from := "base"
			if e.On != "" {
				from = mermaidID(e.On)
			}
			fmt.Fprintf(&b, "    %s --> %s[\"%s: %s\"]\n", from, mermaidID(e.Feature), mermaidText(e.Feature), mermaidText(e.Phase))
		}
	}
	return b.String()
}

// Holds says what holds a workflow, after " — ": the unfinished ones below it, and its own way
// out; "" when nothing does.
func (e StackEntry) Holds() string {
	var parts []string
	if len(e.WaitsFor) > 0 {
		parts = append(parts, "merges after "+strings.Join(e.WaitsFor, ", "))
	}
	if e.Blocked != "" {
		parts = append(parts, "blocked: "+e.Blocked)
	} else if e.Next != "" {
		parts = append(parts, "next: "+e.Next)
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + strings.Join(parts, "; ")
}

// mermaidID is a node id Mermaid accepts for a feature id ([a-z0-9._-]).
func mermaidID(feature string) string {
	return "w_" + strings.NewReplacer(".", "_d", "-", "_h").Replace(feature)
}
