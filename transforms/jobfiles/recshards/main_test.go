package recshards

import (
	"testing"

	"github.com/neardup/neardup/transforms/beamtest"
)

func TestMain(m *testing.M) { beamtest.Main(m) }
