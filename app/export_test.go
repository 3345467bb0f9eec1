package app

// ParseFinding is parseFinding for the external tests (review_findings_test.go).
var ParseFinding = parseFinding
