package similarity

// Containment returns |a ∩ b| / |a|, how much of a lies inside b, for sorted
// sets without repeats (see Set), the sets Jaccard takes. It is not
// symmetric: Containment(a, b) is Containment(b, a) times |b| / |a|, and
// Jaccard(a, b) is at most the smaller of the two. An empty a has
// containment 0, as two empty sets have Jaccard 0: an empty document is
// inside nothing.
func Containment[H Hash](a, b []H) float64 {
	if len(a) == 0 {
		return 0
	}
	inter, _ := Overlap(a, b)
	return float64(inter) / float64(len(a))
}
