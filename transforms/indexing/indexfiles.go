package indexing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/objects"
)

// removePreShards removes the pre-shards (and leftovers of their temporary
// names) in dir.
func removePreShards(ctx context.Context, dir string) error {
	if err := jobfiles.RemoveMatching(ctx, dir, ".sig-*.bin", ".tmp-.sig-*"); err != nil {
		return fmt.Errorf("index: %w", err)
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
	path := objects.JoinPath(dir, index.ManifestName)
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

// OpenIndex reads the manifest of the index in dir (ReadManifest) and
// checks that each generation in another directory is the one the
// manifest lists (the manifest in that directory has the index's
// settings and gives the generation the fingerprint this one records,
// see index.Generation.Fingerprint), and that every file of every
// generation it lists is there with the size it records. A generation
// removed, changed, rebuilt or of other settings is an error naming it,
// never another index. It reads each generation's manifest and the size of each file,
// none of the files: the readers of the files check each one's footer
// where they open it (index.NewShardAt, index.KeyFileAt).
func OpenIndex(ctx context.Context, dir string) (*index.Manifest, error) {
	m, err := ReadManifest(ctx, dir)
	if err != nil {
		return nil, err
	}
	for _, gen := range m.Generations {
		if err := checkGeneration(ctx, dir, m.Version, gen); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// checkGeneration checks gen, a generation of the index in dir, whose
// manifest is of version: for one in another directory, that its own
// manifest has its settings and fingerprint (sameGeneration), then that
// each of its files has the size listed. A generation whose manifest is
// missing is named by the first of its files missing, if one is.
func checkGeneration(ctx context.Context, dir string, version int, gen index.Generation) error {
	var noManifest error
	if gen.Dir != "" && version != 2 {
		b, path, err := readManifestBytes(ctx, gen.Path)
		if err != nil {
			noManifest = fmt.Errorf("index %s needs generation %s (%v)", dir, gen.Path, err)
		} else if err := sameGeneration(dir, gen, b, path); err != nil {
			return err
		}
	}
	names := map[string]int64{}
	for _, sh := range gen.Shards {
		names[sh.Name] = sh.Bytes
	}
	for _, k := range gen.Keys {
		names[k.Name] = k.Bytes
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		path := objects.JoinPath(gen.Path, name)
		size, err := fileSize(ctx, path)
		why := ""
		switch {
		case errors.Is(err, fs.ErrNotExist) || err != nil && strings.Contains(err.Error(), "not exist"):
			why = path + " is missing"
		case err != nil:
			why = fmt.Sprintf("%s: %v", path, err)
		case size != names[name]:
			why = fmt.Sprintf("%s has %d bytes, the manifest says %d", path, size, names[name])
		}
		if why != "" {
			return fmt.Errorf("index %s needs generation %s (%s)", dir, gen.Path, why)
		}
	}
	return noManifest
}

// sameGeneration checks that the manifest b, read from path in the
// directory of gen, a generation the index in dir lists in another
// directory, has gen's settings and gives its own generation gen's
// fingerprint.
func sameGeneration(dir string, gen index.Generation, b []byte, path string) error {
	fp, cfg, err := index.OwnGeneration(b, path)
	if err != nil {
		return fmt.Errorf("index %s needs generation %s (%v)", dir, gen.Path, err)
	}
	if d := gen.Config.DiffNamed(cfg, "index", "generation"); len(d) > 0 {
		return fmt.Errorf("index %s needs generation %s built with its settings, but %s has others (%s): the generation was rebuilt or replaced since",
			dir, gen.Path, path, strings.Join(d, "; "))
	}
	if fp != gen.Fingerprint {
		return fmt.Errorf("index %s needs generation %s with fingerprint %s, but %s gives it %s: the generation was rebuilt or replaced since",
			dir, gen.Path, gen.Fingerprint, path, fp)
	}
	return nil
}

// fileSize is the size of the file at path, on its Beam filesystem.
func fileSize(ctx context.Context, path string) (int64, error) {
	if !strings.Contains(path, "://") {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return 0, err
	}
	defer fsys.Close()
	return fsys.Size(ctx, path)
}

// ShardPath is the path of shard n (of the flattened list) of m.
func ShardPath(m *index.Manifest, n int) string {
	sh := m.Shards[n]
	return objects.JoinPath(m.Generations[sh.Gen].Path, sh.Name)
}

const KeyMask = 1<<wire.KeyBits - 1
