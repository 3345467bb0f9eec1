package workflow

// State's JSON, written and read by hand.
//
// encoding/json builds its reflection tables for State's eighteen struct types the first time a
// process meets them: 0.3 ms to decode a snapshot and 0.1 ms to encode one, paid again by every
// append and every hook call, each a process of its own. The writer below gives exactly the bytes
// encoding/json gives (TestStateJSONIsEncodingJSON). The reader takes the canonical form those
// bytes have; anything else it meets (an escape, an unknown or repeated key, null, a number with a
// fraction) makes it hand the whole document to encoding/json, so a decoded state is always what
// encoding/json makes of it (TestDecodeStateIsEncodingJSON, FuzzDecodeState). Measured
// (BENCHMARKS.md, "State's JSON by hand, and clibench's copies and settling", sixth stop): an
// append direct 7.12 → 6.70 ms; encoding/json's share of an append's samples 10.8% → 3.5%. Measured
// again for issue 31 (BENCHMARKS.md, "Issue 31: what each fast path buys",
// BenchmarkStateJSONFirstUse): a decode and an encode in a fresh process 41–52 µs against 451 µs
// with encoding/json, 0.4 ms an append. That is under issue 31's 1 ms bar, but without it an append
// after gc (7.65–7.89 ms) would pass its 8 ms target: kept until that is settled.

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/exarchos/git-exarchos/internal/jsonstr"
)

// MarshalJSON writes empty collections as {} / [] rather than null, so a fresh state and one
// decoded from a snapshot marshal alike.
func (s State) MarshalJSON() ([]byte, error) {
	w := jsonWriter{b: make([]byte, 0, 1024)}
	s.writeJSON(&w)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

func (s State) writeJSON(w *jsonWriter) {
	w.open()
	w.str("feature", s.Feature)
	w.str("type", s.Type)
	w.str("phase", s.Phase)
	w.str("branch", s.Branch)
	w.strOmit("forkPoint", s.ForkPoint)
	w.int("enteredAt", s.EnteredAt)
	w.strOmit("enteredHead", s.EnteredHead)
	w.strOmit("reason", s.Reason)
	w.strOmit("track", s.Track)
	w.strOmit("synthesis", s.Synthesis)
	w.strOmit("completion", s.Completion)
	w.intOmit("maxIterations", int64(s.MaxIterations))
	writeMap(w, "artifacts", s.Artifacts, emptyAsEmpty, Artifact.writeJSON)
	writeSlice(w, "tasks", s.Tasks, emptyAsEmpty, Task.writeJSON)
	writeMap(w, "reviews", s.Reviews, emptyAsEmpty, Review.writeJSON)
	writeSlice(w, "findings", s.Findings, emptyOmitted, Finding.writeJSON)
	writeSlice(w, "validations", s.Validations, emptyAsEmpty, Validation.writeJSON)
	writeSlice(w, "approvals", s.Approvals, emptyAsEmpty, Approval.writeJSON)
	writeSlice(w, "overrides", s.Overrides, emptyAsEmpty, Override.writeJSON)
	if len(s.Fields) == 0 {
		w.key("fields")
		w.b = append(w.b, '{', '}')
	} else {
		w.raw("fields", s.Fields)
	}
	writeMap(w, "fixCycles", s.FixCycles, emptyAsEmpty, func(n int, w *jsonWriter) { w.value(); w.b = strconv.AppendInt(w.b, int64(n), 10) })
	if s.Circuit != nil {
		w.key("circuit")
		s.Circuit.writeJSON(w)
	}
	w.int("revisions", int64(s.Revisions))
	w.int("retries", int64(s.Retries))
	w.int("iterations", int64(s.Iterations))
	w.key("loop")
	s.Loop.writeJSON(w)
	w.bool("synthesisRequested", s.SynthesisRequested)
	if s.PR != nil {
		w.key("pr")
		s.PR.writeJSON(w)
	}
	if s.Checkpoint != nil {
		w.key("checkpoint")
		s.Checkpoint.writeJSON(w)
	}
	if s.Fanout != nil {
		w.key("fanout")
		s.Fanout.writeJSON(w)
	}
	writeSlice(w, "resources", s.Resources, emptyAsEmpty, Resource.writeJSON)
	if s.Cancel != nil {
		w.key("cancel")
		s.Cancel.writeJSON(w)
	}
	if s.Budget != (Budget{}) { // omitzero
		w.key("budget")
		s.Budget.writeJSON(w)
	}
	writeSlice(w, "grants", s.Grants, emptyOmitted, Grant.writeJSON)
	writeMap(w, "submissions", s.Submissions, emptyOmitted, Submission.writeJSON)
	writeSlice(w, "conflicts", s.Conflicts, emptyAsEmpty, Conflict.writeJSON)
	writeSlice(w, "refused", s.Refused, emptyOmitted, Refused.writeJSON)
	w.int("events", s.Events)
	w.int("ignored", s.Ignored)
	w.int("lastSeq", s.LastSeq)
	w.key("lastClock")
	w.b = strconv.AppendUint(w.b, s.LastClock, 10)
	w.close()
}

func (a Artifact) writeJSON(w *jsonWriter) {
	w.open()
	w.strOmit("path", a.Path)
	w.strOmit("text", a.Text)
	w.bool("inline", a.Inline)
	w.strOmit("commit", a.Commit)
	w.close()
}

func (t Task) writeJSON(w *jsonWriter) {
	w.open()
	w.str("id", t.ID)
	w.str("title", t.Title)
	w.str("status", t.Status)
	w.strOmit("headSha", t.HeadSHA)
	w.strOmit("reason", t.Reason)
	w.strOmit("start", t.Start)
	w.strOmit("session", t.Session)
	w.strOmit("agent", t.Agent)
	w.close()
}

func (r Review) writeJSON(w *jsonWriter) {
	w.open()
	w.str("verdict", r.Verdict)
	w.strOmit("note", r.Note)
	w.strOmit("actor", r.Actor)
	w.strOmit("commit", r.Commit)
	w.strOmit("session", r.Session)
	w.boolOmit("human", r.Human)
	w.strOmit("agent", r.Agent)
	w.int("at", r.At)
	w.close()
}

func (f Finding) writeJSON(w *jsonWriter) {
	w.open()
	w.str("id", f.ID)
	w.str("dimension", f.Dimension)
	w.str("severity", f.Severity)
	w.str("file", f.File)
	w.intOmit("line", int64(f.Line))
	w.str("text", f.Text)
	w.str("commit", f.Commit)
	w.int("seq", f.Seq)
	if f.Closed != nil {
		w.key("closed")
		c := f.Closed
		w.open()
		w.str("by", c.By)
		w.int("seq", c.Seq)
		w.strOmit("commit", c.Commit)
		w.strOmit("note", c.Note)
		w.strOmit("actor", c.Actor)
		w.boolOmit("human", c.Human)
		w.close()
	}
	w.close()
}

func (v Validation) writeJSON(w *jsonWriter) {
	w.open()
	w.str("command", v.Command)
	w.int("exitCode", int64(v.ExitCode))
	w.int("durationMs", v.DurationMs)
	w.str("commit", v.Commit)
	w.boolOmit("adHoc", v.AdHoc)
	w.boolOmit("gate", v.Gate)
	w.close()
}

func (a Approval) writeJSON(w *jsonWriter) {
	w.open()
	w.str("phase", a.Phase)
	w.str("decision", a.Decision)
	w.strOmit("note", a.Note)
	w.strOmit("gaps", a.Gaps)
	w.str("actor", a.Actor)
	w.int("at", a.At)
	w.close()
}

func (o Override) writeJSON(w *jsonWriter) {
	w.open()
	w.str("guard", o.Guard)
	w.str("reason", o.Reason)
	w.str("actor", o.Actor)
	w.str("phase", o.Phase)
	w.int("at", o.At)
	w.close()
}

func (c Circuit) writeJSON(w *jsonWriter) {
	w.open()
	w.str("compound", c.Compound)
	w.bool("open", c.Open)
	w.int("fixCycles", int64(c.FixCycles))
	w.int("limit", int64(c.Limit))
	w.close()
}

func (l LoopSignals) writeJSON(w *jsonWriter) {
	w.open()
	w.bool("workerDone", l.WorkerDone)
	w.bool("reviewerPass", l.ReviewerPass)
	w.int("signals", int64(l.Signals))
	w.close()
}

// writeJSON writes the embedded observation's fields first, where encoding/json puts them.
func (p PR) writeJSON(w *jsonWriter) {
	w.open()
	o := p.PRObservation
	w.int("number", int64(o.Number))
	w.str("url", o.URL)
	w.strOmit("head", o.Head)
	w.strOmit("base", o.Base)
	w.strOmit("headSha", o.HeadSHA)
	w.strOmit("state", o.State)
	w.bool("merged", o.Merged)
	w.strOmit("mergedAt", o.MergedAt)
	w.strOmit("mergeCommitSha", o.MergeCommitSHA)
	w.strOmit("checks", o.Checks)
	writeSlice(w, "failing", o.Failing, emptyOmitted, writeString)
	w.strOmit("reviewDecision", o.ReviewDecision)
	w.strOmit("author", o.Author)
	writeSlice(w, "reviews", o.Reviews, emptyOmitted, PRReview.writeJSON)
	w.strOmit("updatedAt", o.UpdatedAt)
	w.strOmit("observedAt", o.ObservedAt)
	w.boolOmit("confirmed", p.Confirmed)
	w.bool("observed", p.Observed)
	w.bool("mergeVerified", p.MergeVerified)
	w.strOmit("verifiedBy", p.VerifiedBy)
	if p.Verification != nil {
		w.key("verification")
		p.Verification.writeJSON(w)
	}
	if p.MergeDecision != nil {
		w.key("mergeDecision")
		p.MergeDecision.writeJSON(w)
	}
	w.close()
}

func (m MergeDecision) writeJSON(w *jsonWriter) {
	w.open()
	w.int("number", int64(m.Number))
	w.str("url", m.URL)
	w.str("headSha", m.HeadSHA)
	w.str("method", m.Method)
	w.strOmit("note", m.Note)
	w.str("actor", m.Actor)
	w.int("seq", m.Seq)
	w.str("id", m.ID)
	w.close()
}

func (r PRReview) writeJSON(w *jsonWriter) {
	w.open()
	w.str("reviewer", r.Reviewer)
	w.str("state", r.State)
	w.strOmit("commit", r.Commit)
	w.strOmit("submittedAt", r.SubmittedAt)
	w.close()
}

func (m MergeVerifiedData) writeJSON(w *jsonWriter) {
	w.open()
	w.str("method", m.Method)
	w.strOmit("commit", m.Commit)
	w.strOmit("base", m.Base)
	w.strOmit("headSha", m.HeadSHA)
	w.strOmit("observedAt", m.ObservedAt)
	w.strOmit("note", m.Note)
	w.strOmit("apiHost", m.APIHost)
	w.close()
}

func (r Resource) writeJSON(w *jsonWriter) {
	w.open()
	w.str("id", r.ID)
	w.str("kind", r.Kind)
	w.strOmit("task", r.Task)
	w.strOmit("path", r.Path)
	w.strOmit("branch", r.Branch)
	w.strOmit("base", r.Base)
	w.strOmit("head", r.Head)
	w.strOmit("url", r.URL)
	writeSlice(w, "done", r.Done, emptyOmitted, writeString)
	w.strOmit("rescue", r.Rescue)
	if r.Failure != nil {
		w.key("failure")
		r.Failure.writeJSON(w)
	}
	w.close()
}

func (f StepFailure) writeJSON(w *jsonWriter) {
	w.open()
	w.str("action", f.Action)
	w.str("detail", f.Detail)
	w.strOmit("fix", f.Fix)
	w.close()
}

func (c Cancellation) writeJSON(w *jsonWriter) {
	w.open()
	w.str("from", c.From)
	w.strOmit("reason", c.Reason)
	w.strOmit("actor", c.Actor)
	w.int("at", c.At)
	w.close()
}

func (b Budget) writeJSON(w *jsonWriter) {
	w.open()
	w.int("turns", int64(b.Turns))
	w.int("extended", int64(b.Extended))
	w.close()
}

func (g Grant) writeJSON(w *jsonWriter) {
	w.open()
	w.str("id", g.ID)
	w.str("tool", g.Tool)
	w.strOmit("match", g.Match)
	w.str("reason", g.Reason)
	w.str("actor", g.Actor)
	w.close()
}

func (s Submission) writeJSON(w *jsonWriter) {
	w.open()
	w.raw("payload", s.Payload)
	w.str("sha256", s.SHA256)
	w.int("at", s.At)
	w.close()
}

func (c Conflict) writeJSON(w *jsonWriter) {
	w.open()
	w.int("seq", c.Seq)
	w.str("id", c.ID)
	w.str("type", c.Type)
	w.str("reason", c.Reason)
	w.close()
}

func (r Refused) writeJSON(w *jsonWriter) {
	w.open()
	w.int("seq", r.Seq)
	w.str("id", r.ID)
	w.str("type", r.Type)
	w.str("kind", r.Kind)
	w.strOmit("actor", r.Actor)
	w.str("reason", r.Reason)
	w.strOmit("phase", r.Phase)
	w.strOmit("acknowledged", r.Acknowledged)
	w.close()
}

// jsonWriter appends compact JSON. Keys are the constant field names above, which need no
// escaping; values are escaped as encoding/json escapes them.
type jsonWriter struct {
	b   []byte
	err error // from a json.RawMessage that is not JSON, as encoding/json reports it
}

func (w *jsonWriter) open()  { w.value(); w.b = append(w.b, '{') }
func (w *jsonWriter) close() { w.b = append(w.b, '}') }

// value starts a value: a comma unless it is the first in its object or array, or follows a key.
func (w *jsonWriter) value() {
	if n := len(w.b); n > 0 {
		if c := w.b[n-1]; c != '{' && c != '[' && c != ':' {
			w.b = append(w.b, ',')
		}
	}
}

func (w *jsonWriter) key(k string) {
	w.value()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jsonWriter) str(k, v string) { w.key(k); w.b = jsonstr.Append(w.b, v, true) }
func (w *jsonWriter) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}
func (w *jsonWriter) bool(k string, v bool) { w.key(k); w.b = strconv.AppendBool(w.b, v) }

func (w *jsonWriter) strOmit(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *jsonWriter) intOmit(k string, v int64) {
	if v != 0 {
		w.int(k, v)
	}
}

func (w *jsonWriter) boolOmit(k string, v bool) {
	if v {
		w.bool(k, v)
	}
}

// raw writes a json.RawMessage through encoding/json, which compacts and HTML-escapes it (and
// writes null for nil); a RawMessage has no struct fields to reflect over.
func (w *jsonWriter) raw(k string, v json.RawMessage) {
	w.key(k)
	b, err := json.Marshal(v)
	if err != nil && w.err == nil {
		w.err = err
	}
	w.b = append(w.b, b...)
}

// writeString and readString are a []string's elements.
func writeString(s string, w *jsonWriter) { w.value(); w.b = jsonstr.Append(w.b, s, true) }
func readString(s *string, r *jsonReader) { *s = r.string() }

// How a nil or empty collection is written: as empty ([] or {}, as State's MarshalJSON has
// always written them), or not at all (omitempty). No collection here is written as null.
type emptyMode int

const (
	emptyAsEmpty emptyMode = iota
	emptyOmitted
)

func writeSlice[T any](w *jsonWriter, k string, xs []T, mode emptyMode, each func(T, *jsonWriter)) {
	if len(xs) == 0 && mode == emptyOmitted {
		return
	}
	w.key(k)
	w.b = append(w.b, '[')
	for _, x := range xs {
		each(x, w)
	}
	w.b = append(w.b, ']')
}

// writeMap writes m with its keys sorted, as encoding/json does.
func writeMap[T any](w *jsonWriter, k string, m map[string]T, mode emptyMode, each func(T, *jsonWriter)) {
	if len(m) == 0 && mode == emptyOmitted {
		return
	}
	w.key(k)
	w.b = append(w.b, '{')
	for _, name := range slices.Sorted(maps.Keys(m)) {
		w.value()
		w.b = jsonstr.Append(w.b, name, true)
		w.b = append(w.b, ':')
		each(m[name], w)
	}
	w.b = append(w.b, '}')
}

// decodeStateFast reads the canonical form of a state's JSON. ok is false when b is anything
// else; the caller then decodes it with encoding/json.
func decodeStateFast(b []byte) (s State, ok bool) {
	r := jsonReader{b: b, ok: true}
	s.readJSON(&r)
	r.ws()
	if !r.ok || r.i != len(r.b) {
		return State{}, false
	}
	return s, true
}

func (s *State) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "feature":
			s.Feature = r.string()
		case "type":
			s.Type = r.string()
		case "phase":
			s.Phase = r.string()
		case "branch":
			s.Branch = r.string()
		case "forkPoint":
			s.ForkPoint = r.string()
		case "enteredAt":
			s.EnteredAt = r.number(64)
		case "enteredHead":
			s.EnteredHead = r.string()
		case "reason":
			s.Reason = r.string()
		case "track":
			s.Track = r.string()
		case "synthesis":
			s.Synthesis = r.string()
		case "completion":
			s.Completion = r.string()
		case "maxIterations":
			s.MaxIterations = int(r.number(strconv.IntSize))
		case "artifacts":
			s.Artifacts = readMap(r, (*Artifact).readJSON)
		case "tasks":
			s.Tasks = readSlice(r, (*Task).readJSON)
		case "reviews":
			s.Reviews = readMap(r, (*Review).readJSON)
		case "findings":
			s.Findings = readSlice(r, (*Finding).readJSON)
		case "validations":
			s.Validations = readSlice(r, (*Validation).readJSON)
		case "approvals":
			s.Approvals = readSlice(r, (*Approval).readJSON)
		case "overrides":
			s.Overrides = readSlice(r, (*Override).readJSON)
		case "fields":
			s.Fields = r.raw()
		case "fixCycles":
			s.FixCycles = readMap(r, func(n *int, r *jsonReader) { *n = int(r.number(strconv.IntSize)) })
		case "circuit":
			s.Circuit = readPointer(r, (*Circuit).readJSON)
		case "revisions":
			s.Revisions = int(r.number(strconv.IntSize))
		case "retries":
			s.Retries = int(r.number(strconv.IntSize))
		case "iterations":
			s.Iterations = int(r.number(strconv.IntSize))
		case "loop":
			s.Loop.readJSON(r)
		case "synthesisRequested":
			s.SynthesisRequested = r.boolean()
		case "pr":
			s.PR = readPointer(r, (*PR).readJSON)
		case "checkpoint":
			s.Checkpoint = readPointer(r, (*Checkpoint).readJSON)
		case "fanout":
			s.Fanout = readPointer(r, (*StageRun).readJSON)
		case "resources":
			s.Resources = readSlice(r, (*Resource).readJSON)
		case "cancel":
			s.Cancel = readPointer(r, (*Cancellation).readJSON)
		case "budget":
			s.Budget.readJSON(r)
		case "grants":
			s.Grants = readSlice(r, (*Grant).readJSON)
		case "submissions":
			s.Submissions = readMap(r, (*Submission).readJSON)
		case "conflicts":
			s.Conflicts = readSlice(r, (*Conflict).readJSON)
		case "refused":
			s.Refused = readSlice(r, (*Refused).readJSON)
		case "events":
			s.Events = r.number(64)
		case "ignored":
			s.Ignored = r.number(64)
		case "lastSeq":
			s.LastSeq = r.number(64)
		case "lastClock":
			s.LastClock = r.unsigned()
		default:
			return false
		}
		return true
	})
}

func (a *Artifact) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "path":
			a.Path = r.string()
		case "text":
			a.Text = r.string()
		case "inline":
			a.Inline = r.boolean()
		case "commit":
			a.Commit = r.string()
		default:
			return false
		}
		return true
	})
}

func (t *Task) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "id":
			t.ID = r.string()
		case "title":
			t.Title = r.string()
		case "status":
			t.Status = r.string()
		case "headSha":
			t.HeadSHA = r.string()
		case "reason":
			t.Reason = r.string()
		case "start":
			t.Start = r.string()
		case "session":
			t.Session = r.string()
		case "agent":
			t.Agent = r.string()
		default:
			return false
		}
		return true
	})
}

func (v *Review) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "verdict":
			v.Verdict = r.string()
		case "note":
			v.Note = r.string()
		case "actor":
			v.Actor = r.string()
		case "commit":
			v.Commit = r.string()
		case "session":
			v.Session = r.string()
		case "human":
			v.Human = r.boolean()
		case "agent":
			v.Agent = r.string()
		case "at":
			v.At = r.number(64)
		default:
			return false
		}
		return true
	})
}

func (f *Finding) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "id":
			f.ID = r.string()
		case "dimension":
			f.Dimension = r.string()
		case "severity":
			f.Severity = r.string()
		case "file":
			f.File = r.string()
		case "line":
			f.Line = int(r.number(strconv.IntSize))
		case "text":
			f.Text = r.string()
		case "commit":
			f.Commit = r.string()
		case "seq":
			f.Seq = r.number(64)
		case "closed":
			f.Closed = readPointer(r, (*FindingClosed).readJSON)
		default:
			return false
		}
		return true
	})
}

func (c *FindingClosed) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "by":
			c.By = r.string()
		case "seq":
			c.Seq = r.number(64)
		case "commit":
			c.Commit = r.string()
		case "note":
			c.Note = r.string()
		case "actor":
			c.Actor = r.string()
		case "human":
			c.Human = r.boolean()
		default:
			return false
		}
		return true
	})
}

func (v *Validation) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "command":
			v.Command = r.string()
		case "exitCode":
			v.ExitCode = int(r.number(strconv.IntSize))
		case "durationMs":
			v.DurationMs = r.number(64)
		case "commit":
			v.Commit = r.string()
		case "adHoc":
			v.AdHoc = r.boolean()
		case "gate":
			v.Gate = r.boolean()
		default:
			return false
		}
		return true
	})
}

func (a *Approval) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "phase":
			a.Phase = r.string()
		case "decision":
			a.Decision = r.string()
		case "note":
			a.Note = r.string()
		case "gaps":
			a.Gaps = r.string()
		case "actor":
			a.Actor = r.string()
		case "at":
			a.At = r.number(64)
		default:
			return false
		}
		return true
	})
}

func (o *Override) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "guard":
			o.Guard = r.string()
		case "reason":
			o.Reason = r.string()
		case "actor":
			o.Actor = r.string()
		case "phase":
			o.Phase = r.string()
		case "at":
			o.At = r.number(64)
		default:
			return false
		}
		return true
	})
}

func (c Checkpoint) writeJSON(w *jsonWriter) {
	w.open()
	w.int("seq", c.Seq)
	w.str("phase", c.Phase)
	if c.Trigger != "" {
		w.str("trigger", c.Trigger)
	}
	w.close()
}

func (c *Checkpoint) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "seq":
			c.Seq = r.number(64)
		case "phase":
			c.Phase = r.string()
		case "trigger":
			c.Trigger = r.string()
		default:
			return false
		}
		return true
	})
}

func (c *Circuit) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "compound":
			c.Compound = r.string()
		case "open":
			c.Open = r.boolean()
		case "fixCycles":
			c.FixCycles = int(r.number(strconv.IntSize))
		case "limit":
			c.Limit = int(r.number(strconv.IntSize))
		default:
			return false
		}
		return true
	})
}

func (l *LoopSignals) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "workerDone":
			l.WorkerDone = r.boolean()
		case "reviewerPass":
			l.ReviewerPass = r.boolean()
		case "signals":
			l.Signals = int(r.number(strconv.IntSize))
		default:
			return false
		}
		return true
	})
}

func (p *PR) readJSON(r *jsonReader) {
	o := &p.PRObservation
	r.object(func(k string) bool {
		switch k {
		case "number":
			o.Number = int(r.number(strconv.IntSize))
		case "url":
			o.URL = r.string()
		case "head":
			o.Head = r.string()
		case "base":
			o.Base = r.string()
		case "headSha":
			o.HeadSHA = r.string()
		case "state":
			o.State = r.string()
		case "merged":
			o.Merged = r.boolean()
		case "mergedAt":
			o.MergedAt = r.string()
		case "mergeCommitSha":
			o.MergeCommitSHA = r.string()
		case "checks":
			o.Checks = r.string()
		case "failing":
			o.Failing = readSlice(r, readString)
		case "reviewDecision":
			o.ReviewDecision = r.string()
		case "author":
			o.Author = r.string()
		case "reviews":
			o.Reviews = readSlice(r, (*PRReview).readJSON)
		case "updatedAt":
			o.UpdatedAt = r.string()
		case "observedAt":
			o.ObservedAt = r.string()
		case "confirmed":
			p.Confirmed = r.boolean()
		case "observed":
			p.Observed = r.boolean()
		case "mergeVerified":
			p.MergeVerified = r.boolean()
		case "verifiedBy":
			p.VerifiedBy = r.string()
		case "verification":
			p.Verification = readPointer(r, (*MergeVerifiedData).readJSON)
		case "mergeDecision":
			p.MergeDecision = readPointer(r, (*MergeDecision).readJSON)
		default:
			return false
		}
		return true
	})
}

func (m *MergeDecision) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "number":
			m.Number = int(r.number(strconv.IntSize))
		case "url":
			m.URL = r.string()
		case "headSha":
			m.HeadSHA = r.string()
		case "method":
			m.Method = r.string()
		case "note":
			m.Note = r.string()
		case "actor":
			m.Actor = r.string()
		case "seq":
			m.Seq = r.number(64)
		case "id":
			m.ID = r.string()
		default:
			return false
		}
		return true
	})
}

func (v *PRReview) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "reviewer":
			v.Reviewer = r.string()
		case "state":
			v.State = r.string()
		case "commit":
			v.Commit = r.string()
		case "submittedAt":
			v.SubmittedAt = r.string()
		default:
			return false
		}
		return true
	})
}

func (m *MergeVerifiedData) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "method":
			m.Method = r.string()
		case "commit":
			m.Commit = r.string()
		case "base":
			m.Base = r.string()
		case "headSha":
			m.HeadSHA = r.string()
		case "observedAt":
			m.ObservedAt = r.string()
		case "note":
			m.Note = r.string()
		case "apiHost":
			m.APIHost = r.string()
		default:
			return false
		}
		return true
	})
}

func (res *Resource) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "id":
			res.ID = r.string()
		case "kind":
			res.Kind = r.string()
		case "task":
			res.Task = r.string()
		case "path":
			res.Path = r.string()
		case "branch":
			res.Branch = r.string()
		case "base":
			res.Base = r.string()
		case "head":
			res.Head = r.string()
		case "url":
			res.URL = r.string()
		case "done":
			res.Done = readSlice(r, readString)
		case "rescue":
			res.Rescue = r.string()
		case "failure":
			res.Failure = readPointer(r, (*StepFailure).readJSON)
		default:
			return false
		}
		return true
	})
}

func (f *StepFailure) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "action":
			f.Action = r.string()
		case "detail":
			f.Detail = r.string()
		case "fix":
			f.Fix = r.string()
		default:
			return false
		}
		return true
	})
}

func (c *Cancellation) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "from":
			c.From = r.string()
		case "reason":
			c.Reason = r.string()
		case "actor":
			c.Actor = r.string()
		case "at":
			c.At = r.number(64)
		default:
			return false
		}
		return true
	})
}

func (b *Budget) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "turns":
			b.Turns = int(r.number(strconv.IntSize))
		case "extended":
			b.Extended = int(r.number(strconv.IntSize))
		default:
			return false
		}
		return true
	})
}

func (g *Grant) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "id":
			g.ID = r.string()
		case "tool":
			g.Tool = r.string()
		case "match":
			g.Match = r.string()
		case "reason":
			g.Reason = r.string()
		case "actor":
			g.Actor = r.string()
		default:
			return false
		}
		return true
	})
}

func (s *Submission) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "payload":
			s.Payload = r.raw()
		case "sha256":
			s.SHA256 = r.string()
		case "at":
			s.At = r.number(64)
		default:
			return false
		}
		return true
	})
}

func (c *Conflict) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "seq":
			c.Seq = r.number(64)
		case "id":
			c.ID = r.string()
		case "type":
			c.Type = r.string()
		case "reason":
			c.Reason = r.string()
		default:
			return false
		}
		return true
	})
}

func (f *Refused) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "seq":
			f.Seq = r.number(64)
		case "id":
			f.ID = r.string()
		case "type":
			f.Type = r.string()
		case "kind":
			f.Kind = r.string()
		case "actor":
			f.Actor = r.string()
		case "reason":
			f.Reason = r.string()
		case "phase":
			f.Phase = r.string()
		case "acknowledged":
			f.Acknowledged = r.string()
		default:
			return false
		}
		return true
	})
}

// jsonReader reads the canonical subset of JSON that jsonWriter writes: strings without escapes,
// integers, true/false, objects whose keys each appear once, arrays. On anything else it sets ok
// to false and stops consuming input.
type jsonReader struct {
	b  []byte
	i  int
	ok bool
}

func (r *jsonReader) fail() { r.ok = false }

func (r *jsonReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// take consumes c (after white space) and reports whether it was there.
func (r *jsonReader) take(c byte) bool {
	r.ws()
	if r.ok && r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// object reads an object, calling field for each key; field returns false for a key it does not
// know. A key given twice leaves the canonical form: encoding/json keeps the last scalar but
// merges a repeated object into the first.
func (r *jsonReader) object(field func(k string) bool) {
	if !r.take('{') {
		r.fail()
		return
	}
	if r.take('}') {
		return
	}
	var seenArray [40]string
	seen := seenArray[:0]
	for r.ok {
		k := r.string()
		if slices.Contains(seen, k) || !r.take(':') || !field(k) {
			r.fail()
			return
		}
		seen = append(seen, k)
		if r.take(',') {
			continue
		}
		if !r.take('}') {
			r.fail()
		}
		return
	}
}

// string reads a string with no escape and no control character, in valid UTF-8.
func (r *jsonReader) string() string {
	if !r.take('"') {
		r.fail()
		return ""
	}
	start, ascii := r.i, true
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			s := r.b[start:r.i]
			r.i++
			if !ascii && !utf8.Valid(s) {
				r.fail()
			}
			return string(s)
		case c < 0x20 || c == '\\':
			r.fail()
			return ""
		case c >= utf8.RuneSelf:
			ascii = false
		}
		r.i++
	}
	r.fail()
	return ""
}

// integer reads an integer in JSON's form: no leading zero, no fraction or exponent (those leave
// the canonical form at the next read).
func (r *jsonReader) integer() string {
	r.ws()
	start := r.i
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	digits := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	if r.i == digits || (r.b[digits] == '0' && r.i-digits > 1) {
		r.fail()
		return "0"
	}
	return string(r.b[start:r.i])
}

// number reads an integer that fits in bits.
func (r *jsonReader) number(bits int) int64 {
	n, err := strconv.ParseInt(r.integer(), 10, bits)
	if err != nil {
		r.fail()
	}
	return n
}

// unsigned reads a non-negative integer (ParseUint refuses a sign, as encoding/json does).
func (r *jsonReader) unsigned() uint64 {
	n, err := strconv.ParseUint(r.integer(), 10, 64)
	if err != nil {
		r.fail()
	}
	return n
}

func (r *jsonReader) boolean() bool {
	r.ws()
	rest := r.b[r.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		r.i += 4
		return true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		r.i += 5
		return false
	}
	r.fail()
	return false
}

// raw reads any JSON value but null, as encoding/json gives it to a json.RawMessage: its bytes as
// they stand.
func (r *jsonReader) raw() json.RawMessage {
	r.ws()
	start := r.i
	r.skip(0)
	if !r.ok {
		return nil
	}
	v := r.b[start:r.i]
	if string(v) == "null" || !json.Valid(v) {
		r.fail()
		return nil
	}
	return append(json.RawMessage(nil), v...)
}

// maxRawDepth is encoding/json's nesting limit; deeper input is its to refuse.
const maxRawDepth = 10000

// skip passes over one value, finding where it ends; raw checks that it is JSON.
func (r *jsonReader) skip(depth int) {
	r.ws()
	if depth > maxRawDepth || r.i >= len(r.b) {
		r.fail()
		return
	}
	switch r.b[r.i] {
	case '{', '[':
		end := byte('}')
		if r.b[r.i] == '[' {
			end = ']'
		}
		r.i++
		if r.take(end) {
			return
		}
		for r.ok {
			if end == '}' {
				r.skip(depth + 1)
				if !r.take(':') {
					r.fail()
					return
				}
			}
			r.skip(depth + 1)
			if r.take(',') {
				continue
			}
			if !r.take(end) {
				r.fail()
			}
			return
		}
	case '"':
		for r.i++; r.i < len(r.b) && r.b[r.i] != '"'; r.i++ {
			if r.b[r.i] == '\\' {
				r.i++
			}
		}
		if r.i >= len(r.b) {
			r.fail()
			return
		}
		r.i++
	default: // a number or a literal, up to the next delimiter
		start := r.i
		for r.i < len(r.b) && !isDelimiter(r.b[r.i]) {
			r.i++
		}
		if r.i == start {
			r.fail()
		}
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r', '{', '[', '"':
		return true
	}
	return false
}

// readSlice reads an array as encoding/json fills a nil slice: [] gives an empty, non-nil slice.
func readSlice[T any](r *jsonReader, each func(*T, *jsonReader)) []T {
	if !r.take('[') {
		r.fail()
		return nil
	}
	xs := []T{}
	if r.take(']') {
		return xs
	}
	for r.ok {
		var x T
		each(&x, r)
		xs = append(xs, x)
		if r.take(',') {
			continue
		}
		if !r.take(']') {
			r.fail()
		}
		break
	}
	return xs
}

// readMap reads an object into a new map.
func readMap[T any](r *jsonReader, each func(*T, *jsonReader)) map[string]T {
	if !r.take('{') {
		r.fail()
		return nil
	}
	m := map[string]T{}
	if r.take('}') {
		return m
	}
	for r.ok {
		k := r.string()
		if !r.take(':') { // a repeated key: the last value, as in encoding/json
			r.fail()
			return nil
		}
		var x T
		each(&x, r)
		m[k] = x
		if r.take(',') {
			continue
		}
		if !r.take('}') {
			r.fail()
		}
		break
	}
	return m
}

func readPointer[T any](r *jsonReader, read func(*T, *jsonReader)) *T {
	x := new(T)
	read(x, r)
	return x
}
