package soft

// SetDictPreds exposes setDictPreds to the package's external tests
// (package soft_test).
var SetDictPreds = setDictPreds
