package workflow

import (
	"fmt"
	"strings"
)

// mermaidFanouts draws each fan-out as Mermaid's fork and join: the fan-out phase forks into its
// stages, which meet at a join bar whose edge into the join phase carries the guard.
func (d *Definition) mermaidFanouts(b *strings.Builder) {
	for _, f := range d.Fanouts {
		from, fork, join := mermaidID(f.Phase), mermaidID(f.Phase)+"_fork", mermaidID(f.Phase)+"_join"
		fmt.Fprintf(b, "    state %s <<fork>>\n", fork)
		fmt.Fprintf(b, "    state %s <<join>>\n", join)
		fmt.Fprintf(b, "    %s --> %s\n", from, fork)
		for _, id := range f.Stages {
			if strings.Contains(id, "-") {
				fmt.Fprintf(b, "    state \"%s\" as %s\n", id, mermaidID(id))
			}
			fmt.Fprintf(b, "    %s --> %s\n", fork, mermaidID(id))
			fmt.Fprintf(b, "    %s --> %s\n", mermaidID(id), join)
		}
		label := GuardStagesCompleted
		if t, ok := d.find(f.Phase, f.Join); ok {
			label = strings.Join(t.Guards, ", ")
		}
		fmt.Fprintf(b, "    %s --> %s : [%s]\n", join, mermaidID(f.Join), strings.ReplaceAll(label, ":", " "))
		fmt.Fprintf(b, "    note right of %s : stages run in parallel, a failure cancels the others\n", fork)
	}
}

// textFanouts writes describe's section on stages and fan-outs.
func (d *Definition) textFanouts(b *strings.Builder) {
	if len(d.Fanouts) == 0 {
		return
	}
	b.WriteString("\nfan-outs:\n")
	for _, f := range d.Fanouts {
		guards := GuardStagesCompleted
		if t, ok := d.find(f.Phase, f.Join); ok {
			guards = strings.Join(t.Guards, ", ")
		}
		fmt.Fprintf(b, "  %s runs %s in parallel (a failure cancels the others), then joins into %s [%s]\n", f.Phase, strings.Join(f.Stages, ", "), f.Join, guards)
		for _, id := range f.Stages {
			st, _ := d.Stage(id)
			fmt.Fprintf(b, "    stage %s", id)
			if tags := envelopeTags(st.Tools, "git exarchos stage done"); len(tags) > 0 {
				fmt.Fprintf(b, " (%s)", strings.Join(tags, "; "))
			}
			if st.Description != "" {
				fmt.Fprintf(b, " — %s", st.Description)
			}
			b.WriteByte('\n')
		}
	}
}
