// Package archtest holds no code, only the test that keeps the module's packages in their places:
// every package has a row in one table (its job and what it may import, mirroring the design's
// package table and CONTRIBUTING.md's package map), every import of every non-test file follows its row, the pure packages do no
// I/O and read no clock, and every package's doc comment says its job and what it may import.
// A new package, or a new import across a boundary, fails there with the rule it breaks.
//
// It may import the standard library only.
package archtest
