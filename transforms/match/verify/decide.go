package verify

// Passes reports whether a pair whose Jaccard similarity is jaccard (exact,
// or the estimate of a pair decided without its texts) reaches c's
// threshold. NaN does not.
func (c Config) Passes(jaccard float64) bool { return jaccard >= c.Threshold }
