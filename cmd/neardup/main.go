package main

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/go-ego/gse"
	_ "github.com/cespare/xxhash/v2"
	_ "golang.org/x/text/unicode/norm"
)

func main() { beam.Init() }
