// Package near turns block entries into verified near-duplicate pairs:
// Candidates groups the entries into buckets and proposes pairs, Verify
// joins each pair with its documents' infos and decides it by the
// estimate, and ExactChecks decides the pairs the estimate cannot by the
// exact Jaccard of their shingle sets. In: block entries; out: matches
// keyed by file index.
package near
