package conformance

// knownGaps is the ONE list of queries a suite expects hados not to run
// yet (or, marked wrong, to answer wrongly), each with the reason and a
// piece of the error it must fail with. Every other query must run and
// match DuckDB. A listed query must still fail to run, with an error
// containing want (a different error fails the suite: the reason changed,
// update the entry); a wrong answer fails unless the entry says wrong; and
// a listed query that starts to pass fails the suite until its entry is
// removed, so the list cannot go stale.
var knownGaps = map[gapKey]gap{
	// Builder plans (standard schema): none; all 22 run and match.
	// Spark's own plans (decimal(10,0) test schema): none; all 22 run and
	// match (Q6 through its EmptyRelation read as an empty input).
}

// gap is why a query cannot run yet and what its error must contain; or,
// with wrong set, a query that runs but answers wrongly: a known bug of
// the executor or operators, logged with its diff instead of failing, and
// listed in the report. A wrong entry whose query starts to match fails
// the suite like any other stale entry.
type gap struct {
	reason string
	want   string
	wrong  bool
}

// gapKey names one query of one suite.
type gapKey struct {
	suite string // suiteBuilder or suiteSpark
	query int
}

const (
	suiteBuilder = "builder" // the 22 builder plans over the standard schema
	suiteSpark   = "spark"   // Spark's own 22 plans over its test schema
)
