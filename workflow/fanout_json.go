package workflow

// StageRun's JSON by hand, as the rest of State's (state_json.go).

func (run StageRun) writeJSON(w *jsonWriter) {
	w.open()
	w.str("phase", run.Phase)
	writeMap(w, "stages", run.Stages, emptyOmitted, StageStatus.writeJSON)
	w.close()
}

func (run *StageRun) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "phase":
			run.Phase = r.string()
		case "stages":
			run.Stages = readMap(r, (*StageStatus).readJSON)
		default:
			return false
		}
		return true
	})
}

func (st StageStatus) writeJSON(w *jsonWriter) {
	w.open()
	w.str("status", st.Status)
	w.strOmit("reason", st.Reason)
	w.strOmit("cause", st.Cause)
	w.strOmit("sha256", st.SHA256)
	w.strOmit("actor", st.Actor)
	w.close()
}

func (st *StageStatus) readJSON(r *jsonReader) {
	r.object(func(k string) bool {
		switch k {
		case "status":
			st.Status = r.string()
		case "reason":
			st.Reason = r.string()
		case "cause":
			st.Cause = r.string()
		case "sha256":
			st.SHA256 = r.string()
		case "actor":
			st.Actor = r.string()
		default:
			return false
		}
		return true
	})
}
