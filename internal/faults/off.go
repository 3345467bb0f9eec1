//go:build !exarchos_faults || !unix

package faults

// Enabled says whether this build has fault points.
const Enabled = false

// Step does nothing in a build without fault points.
func Step(int) {}

// Hit does nothing in a build without fault points.
func Hit(string) {}
