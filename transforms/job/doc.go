// Package job holds a job's configuration (Config): every setting of a
// run or an audit as plain values that Beam serializes to the workers, its
// defaults (DefaultConfig) and its check (Config.Validate), the part an
// index records (Config.IndexConfig), and the narrow configurations the
// stages' DoFns hold in its place (Signing, ReadOptions, OutDir, and the
// work directory's handle, Config.WorkDir). It imports no Beam and no
// stage.
package job
