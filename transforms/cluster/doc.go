// Package cluster decides which documents the matches remove
// (Clusters): matches grouped by file in (GroupMatches), connected
// components found in rounds, then each component decided, by default so
// that a document is removed only for a match with a document that is kept
// (package graph/greedy, a partition of components at a time by package
// graph/external); out go the cluster lines and the documents to remove.
package cluster
