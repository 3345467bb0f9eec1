package app

// CompleteOptions asks for the values a command-line argument can take, for shell completion.
type CompleteOptions struct {
	// Slot is the argument's name in the command's specs: feature (or features), phase, type.
	Slot string
	// Feature is the workflow already named on the line (for phase; "" is the one bound to the branch).
	Feature string
}

// Complete lists the values of o.Slot: the workflows' feature ids, the phases of the named
// workflow's type, the workflow types (built in, and the repository's when r is not nil). It never
// fails: what cannot be read completes nothing.
func Complete(r *Repo, o CompleteOptions) []string {
	var out []string
	switch o.Slot {
	case "feature", "features":
		if r == nil {
			return nil
		}
		list, err := ListWorkflows(r, ListOptions{All: true})
		if err != nil {
			return nil
		}
		for _, s := range list.Workflows {
			out = append(out, s.Feature)
		}
	case "phase":
		if r == nil {
			return nil
		}
		st, err := ShowStatus(r, StatusOptions{Feature: o.Feature})
		if err != nil {
			return nil
		}
		res, err := Describe(r, DescribeOptions{Type: st.Status.Type, Format: "json"})
		if err != nil || len(res.Definitions) == 0 {
			return nil
		}
		return res.Definitions[0].PhaseIDs()
	case "type":
		res, err := Describe(r, DescribeOptions{Format: "json"})
		if err != nil {
			return nil
		}
		for _, d := range res.Definitions {
			out = append(out, d.Type)
		}
	}
	return out
}
