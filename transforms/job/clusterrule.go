package job

import "fmt"

// ClusterRule says which documents the matches remove and what a cluster
// of the outputs is.
type ClusterRule int

// ParseClusterRule parses the name of a ClusterRule: kept or components.
func ParseClusterRule(name string) (ClusterRule, error) {
	switch name {
	case "kept":
		return ClustersKept, nil
	case "components":
		return ClustersComponents, nil
	}
	return 0, fmt.Errorf("clusters %q: want kept or components", name)
}

func (r ClusterRule) String() string {
	if r == ClustersComponents {
		return "components"
	}
	return "kept"
}

const (
	// ClustersKept removes a document only for a match with a document that
	// is kept: documents are decided in --keep order, and a document is kept
	// unless a kept document before it is its match. A cluster is a kept
	// document and the documents removed for it.
	ClustersKept ClusterRule = iota
	// ClustersComponents keeps one document of each connected component of
	// the matches, which is one cluster: removals chain (A ~ B ~ C removes C
	// for A, although they may not be alike).
	ClustersComponents
)
