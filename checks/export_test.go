package checks

// Provenance is the provenance judgement (judgeProvenance), which
// PullRequest calls itself, for the black-box tests of package checks_test.
var Provenance = judgeProvenance
