// Package faults holds test-only crash points. Built without the exarchos_faults tag (every
// shipped binary), every function here does nothing; built with it, a point named by
// EXARCHOS_TEST_CRASH_AFTER_STEP kills the process with SIGKILL, so that tests can prove that
// a command killed at that instant loses nothing and resumes.
//
// The variable names a step of the current run and a point in it: "N" (step N recorded; 0 is the
// cancel request), "N:act" (step N performed on git, not yet recorded), "N:moved" (a worktree
// directory renamed aside, not yet removed), "N:half" (half of the renamed directory deleted).
//
// It may import the standard library only.
package faults

// Env is the variable a faults build reads.
const Env = "EXARCHOS_TEST_CRASH_AFTER_STEP"
