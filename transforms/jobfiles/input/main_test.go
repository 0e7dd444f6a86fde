package input

import (
	"testing"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"

	"github.com/neardup/neardup/transforms/beamtest"
)

func TestMain(m *testing.M) { beamtest.Main(m) }
