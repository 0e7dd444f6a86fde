package rounds

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

func init() {
	register.DoFn5x0[context.Context, int64, func(*[]byte) bool, func(int64, []byte), func(string, int64)](&roundProbeFn{})
	register.Function1x2(roundElem)
}

// roundSpans records, per round (the key of its elements), when
// roundProbeFn started and ended its work. The runners of the tests run the
// DoFns in this process.
var roundSpans struct {
	sync.Mutex
	start, end map[int]time.Time
}

// roundProbeFn records the span of its work for one group, which takes
// 100 ms, and emits a stat.
type roundProbeFn struct{}

func (fn *roundProbeFn) ProcessElement(ctx context.Context, k int64, values func(*[]byte) bool, emit func(int64, []byte), emitStat func(string, int64)) {
	round := int(k)
	start := time.Now()
	var v []byte
	n := 0
	for values(&v) {
		n++
	}
	time.Sleep(100 * time.Millisecond)
	roundSpans.Lock()
	roundSpans.start[round], roundSpans.end[round] = start, time.Now()
	roundSpans.Unlock()
	emit(k, []byte{byte(n)})
	emitStat("probe", int64(n))
}

func roundElem(round int) (int64, []byte) { return int64(round), []byte{1} }

// TestInRoundsWait: Run starts a round's groups only after the round
// before has finished. Without the wait (After), the runner
// works on the three rounds, whose inputs are all ready at the start, at
// the same time.
func TestInRoundsWait(t *testing.T) {
	roundSpans.start, roundSpans.end = map[int]time.Time{}, map[int]time.Time{}
	p, s := beam.NewPipelineWithRoot()
	var rounds []beam.PCollection
	for i := range 3 {
		rounds = append(rounds, beam.ParDo(s, roundElem, beam.CreateList(s, []int{i, i, i})))
	}
	out := Run(s, 2, &roundProbeFn{}, rounds)
	if len(out) != 2 {
		t.Fatalf("Run gave %d outputs, want 2", len(out))
	}
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	if len(roundSpans.end) != 3 {
		t.Fatalf("%d rounds ran, want 3", len(roundSpans.end))
	}
	for i := 1; i < 3; i++ {
		if roundSpans.start[i].Before(roundSpans.end[i-1]) {
			t.Errorf("round %d started %v before round %d ended", i, roundSpans.end[i-1].Sub(roundSpans.start[i]), i-1)
		}
	}
}
