package job

import (
	"fmt"

	"github.com/neardup/neardup/transforms/choice"
)

// ClusterRule says which documents the matches remove and what a cluster
// of the outputs is.
type ClusterRule int

// clusterRuleNames are the names of the cluster rules.
var clusterRuleNames = choice.Names[ClusterRule]{
	{Value: ClustersKept, Name: "kept"},
	{Value: ClustersComponents, Name: "components"},
}

// String returns the name of r.
func (r ClusterRule) String() string {
	if name, ok := clusterRuleNames.Name(r); ok {
		return name
	}
	return fmt.Sprintf("ClusterRule(%d)", int(r))
}

// MarshalText returns the name of r.
func (r ClusterRule) MarshalText() ([]byte, error) {
	return clusterRuleNames.Marshal("cluster rule", r)
}

// UnmarshalText sets r to the cluster rule text names: kept or components.
func (r *ClusterRule) UnmarshalText(text []byte) (err error) {
	*r, err = clusterRuleNames.Parse(string(text))
	return err
}

// ParseClusterRule returns the cluster rule s names (ClusterRule.UnmarshalText); its error quotes s.
func ParseClusterRule(s string) (ClusterRule, error) {
	v, err := clusterRuleNames.Parse(s)
	if err != nil {
		return v, fmt.Errorf("cluster rule %q: %w", s, err)
	}
	return v, nil
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
