package plan

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/transforms/choice"
)

// Engine is the Beam runner a job runs on: Beam's --runner, parsed.
type Engine int

// The engines.
const (
	Direct    Engine = iota // Beam's direct runner, in this process
	Prism                   // Beam's Prism runner, in this process
	Flink                   // a Flink cluster, through Beam's job server
	Spark                   // a Spark cluster, through Beam's job server
	Universal               // any Beam job server (--endpoint)
	Dataflow                // Google Cloud Dataflow
)

// engineNames are the names of the engines, then the other names Beam
// registers them under.
var engineNames = choice.Names[Engine]{
	{Value: Direct, Name: "direct"},
	{Value: Prism, Name: "prism"},
	{Value: Flink, Name: "flink"},
	{Value: Spark, Name: "spark"},
	{Value: Universal, Name: "universal"},
	{Value: Dataflow, Name: "dataflow"},
	{Value: Direct, Name: "directrunner"},
	{Value: Prism, Name: "prismrunner"},
	{Value: Flink, Name: "flinkrunner"},
	{Value: Spark, Name: "sparkrunner"},
	{Value: Universal, Name: "portable"},
	{Value: Universal, Name: "portablerunner"},
	{Value: Dataflow, Name: "dataflowrunner"},
}

// ParseEngine returns the engine Beam's --runner names; its error quotes
// the name.
func ParseEngine(name string) (Engine, error) {
	e, err := engineNames.Parse(name)
	if err != nil {
		return e, fmt.Errorf("--runner %q: %w", name, err)
	}
	return e, nil
}

// String returns the name of e.
func (e Engine) String() string {
	if name, ok := engineNames.Name(e); ok {
		return name
	}
	return fmt.Sprintf("Engine(%d)", int(e))
}

// Local reports whether a job on e runs in this process.
func (e Engine) Local() bool { return e == Direct || e == Prism }

// SharesWork reports whether every worker of a job on e whose output
// directory is output reads and writes the job's work directory, which is
// in the output unless the job runs in this process, as a local disk: on
// one machine, or on a cluster when output is a path, not a URL (the
// workers of a cluster on one machine, or of one that mounts the path).
// Such a job spills its large shuffles and spools its compressed inputs
// there, as on one machine, and the runner carries only the files' names.
func (e Engine) SharesWork(output string) bool { return e.Local() || !strings.Contains(output, "://") }

// Portable reports whether e runs a job through a Beam job server that
// takes the pipeline options of Beam's Java runners.
func (e Engine) Portable() bool { return e == Flink || e == Spark || e == Universal }
