package outdir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRelation: how two paths lie to each other, local or URLs, a link
// resolved in the part that exists.
func TestRelation(t *testing.T) {
	root := t.TempDir()
	if err := os.Symlink(root, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ a, b, want string }{
		{root + "/a", root + "/a/", "the same directory"},
		{root + "/a/b", root + "/a", "inside it"},
		{root + "/a", root + "/a/b/c", "holds it"},
		{root + "/ab", root + "/a", ""},
		{root + "/link/x/y", root + "/x", "inside it"},
		{"gs://b/out/", "gs://b/out", "the same directory"},
		{"gs://b/out/idx", "gs://b/out", "inside it"},
		{"gs://b/out2", "gs://b/out", ""},
	} {
		if got := relation(Resolve(tt.a), Resolve(tt.b)); got != tt.want {
			t.Errorf("relation(%s, %s) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}
