// Package indexing writes and opens the signature index: a run's kept
// documents become one generation (WriteIndex), an audit's a generation on
// top of its index (UpdateIndex), and CompactIndex merges a chain of
// generations into one. OpenIndex reads and checks a manifest and its
// generations.
package indexing
