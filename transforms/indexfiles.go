package transforms

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/internal/workfiles"
)

// removePreShards removes the pre-shards (and leftovers of their temporary
// names) in dir.
func removePreShards(ctx context.Context, dir string) error {
	if err := removeMatching(ctx, dir, ".sig-*.bin", ".tmp-.sig-*"); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// removeMatching removes the files of dir that match any of globs, on dir's
// Beam filesystem; nothing if that filesystem cannot remove files.
func removeMatching(ctx context.Context, dir string, globs ...string) error {
	fsys, err := filesystem.New(ctx, output.JoinPath(dir, "x"))
	if err != nil {
		return err
	}
	defer fsys.Close()
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return nil
	}
	for _, glob := range globs {
		names, err := fsys.List(ctx, output.JoinPath(dir, glob))
		if err != nil {
			return fmt.Errorf("listing %s: %w", dir, err)
		}
		for _, name := range names {
			if err := rm.Remove(ctx, name); err != nil {
				return fmt.Errorf("removing %s: %w", name, err)
			}
		}
	}
	return nil
}

// ReadManifest reads and checks DIR/index.json through Beam's filesystems
// (index.ParseManifest), and resolves its generations' directories
// (Generation.Path): one that lists dir itself besides its own generation
// lists a generation twice.
func ReadManifest(ctx context.Context, dir string) (*index.Manifest, error) {
	b, path, err := readManifestBytes(ctx, dir)
	if err != nil {
		return nil, err
	}
	m, err := index.ParseManifest(b, path)
	if err != nil {
		return nil, err
	}
	for g := range m.Generations {
		gen := &m.Generations[g]
		if gen.Path = gen.Dir; gen.Dir == "" {
			gen.Path = dir
		}
	}
	own := slices.ContainsFunc(m.Generations, func(gen index.Generation) bool { return gen.Dir == "" })
	for g, gen := range m.Generations {
		if own && gen.Dir != "" && index.CleanDir(gen.Dir) == index.CleanDir(dir) {
			return nil, fmt.Errorf("%s: %w: generation %s is listed twice (generation %d and the manifest's own)", path, index.ErrCorrupt, gen.Dir, g)
		}
	}
	return m, nil
}

// readManifestBytes returns DIR/index.json and its path.
func readManifestBytes(ctx context.Context, dir string) ([]byte, string, error) {
	path := output.JoinPath(dir, index.ManifestName)
	rc, err := workfiles.Open(ctx, path)
	if err != nil {
		return nil, path, fmt.Errorf("index %s: no manifest: %w", dir, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 256<<20))
	if err != nil {
		return nil, path, fmt.Errorf("index %s: reading %s: %w", dir, path, err)
	}
	return b, path, nil
}
