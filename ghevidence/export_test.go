package ghevidence

// FindingText is findingText, for the tests.
var FindingText = findingText
