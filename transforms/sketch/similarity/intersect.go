package similarity

// gallopRatio is the size ratio from which Intersection searches the
// larger set for each element of the smaller (O(|a| log(|b|/|a|))) rather
// than walking both (O(|a| + |b|)).
const gallopRatio = 16

// Intersection returns |a ∩ b| for sorted sets a and b without repeats when
// it is at least need. Once the elements left cannot bring it to need, it
// stops and returns a count below need: a test of "at least need shared"
// reads only as far as it must. need <= 0 counts the whole intersection.
func Intersection[H Hash](a, b []H, need int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 || need > len(a) {
		return 0
	}
	if len(b) >= gallopRatio*len(a) {
		return gallop(a, b, need)
	}
	return merge(a, b, need)
}

// merge walks a and b (len(a) <= len(b)) together.
func merge[H Hash](a, b []H, need int) int {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		if inter+len(a)-i < need {
			return inter
		}
		switch x, y := a[i], b[j]; {
		case x == y:
			inter++
			i++
			j++
		case x < y:
			i++
		default:
			j++
		}
	}
	return inter
}

// gallop looks each element of a up in b (len(a) much less than len(b)):
// from where the last one was, in steps that double, then by bisection.
func gallop[H Hash](a, b []H, need int) int {
	inter, lo := 0, 0
	for i, x := range a {
		if inter+len(a)-i < need {
			return inter
		}
		step, hi := 1, lo
		for hi < len(b) && b[hi] < x {
			lo = hi + 1
			hi += step
			step <<= 1
		}
		hi = min(hi, len(b)-1)
		for lo < hi { // first of b[lo..hi] >= x
			m := int(uint(lo+hi) >> 1)
			if b[m] < x {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == len(b) {
			return inter
		}
		if b[lo] == x {
			inter++
			lo++
		}
	}
	return inter
}
