package rounds

import (
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// TestMain runs the tests on Prism, in this process.
func TestMain(m *testing.M) { ptest.Main(m) }
