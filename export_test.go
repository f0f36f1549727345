package replay

// CoreRules are the core rules, for the tests of package replay_test.
func CoreRules() []Rule { return append([]Rule(nil), coreRules[:]...) }
