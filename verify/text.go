package verify

// The text form of verify's verdicts, as cmd prints it when --json is not given.

import (
	"fmt"
	"io"
)

// WriteVerify writes verify's verdict on each workflow, as `git exarchos verify` prints it, but for
// the trust line cmd ends it with.
func WriteVerify(w io.Writer, res *Result, bold func(string) string) {
	for _, wf := range res.Workflows {
		verdict := "ok"
		if len(wf.Violations) > 0 {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "%s (%s, %s): %d events, %d decisions: %s\n", bold(wf.Feature), wf.Type, wf.Phase, wf.Events, wf.Decisions, verdict)
		for _, v := range wf.Violations {
			fmt.Fprintf(w, "  seq %d %s [%s]: %s\n", v.Seq, v.Event, v.Rule, v.Message)
		}
		if wf.GatesRerun != nil {
			fmt.Fprintf(w, "  gates: %d run(s) repeated on the commits they were recorded on\n", *wf.GatesRerun)
		}
		if wf.GitHub != "" {
			fmt.Fprintf(w, "  github: %s\n", wf.GitHub)
			if wf.GitHub == GitHubNoToken {
				fmt.Fprintf(w, "  the pull request was not checked with GitHub: set GITHUB_TOKEN or GH_TOKEN (CI: --require-github fails without one)\n")
			}
		}
		for _, a := range wf.Acknowledged {
			fmt.Fprintf(w, "  seq %d: refused %s decision %s (%s), acknowledged by %s\n", a.Seq, a.Kind, a.Event, a.Reason, a.By)
		}
	}
	if res.BaseProtection != "" {
		fmt.Fprintf(w, "base protection: %s\n", res.BaseProtection)
	}
}
