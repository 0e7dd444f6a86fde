// Package workerkey names a Go worker binary by the SHA-256 of its bytes:
// the key by which neardup's job service (cmd/neardup/internal/jobservice)
// tells the clusters' boot (cmd/neardup-boot) which binary a job runs, so
// that a cluster keeps each build once.
package workerkey

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// Env is the environment variable of a PROCESS environment that holds the
// key of the job's worker binary; Beam's own boot ignores it.
const Env = "NEARDUP_WORKER_SHA256"

// Sum returns the key of what r holds: its SHA-256 in lower-case hex. Name
// names r in an error.
func Sum(r io.Reader, name string) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("reading %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// File returns the key of the file at path.
func File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Sum(f, path)
}

// Parse returns s as a key (lower case) and true if it is a SHA-256 in hex.
func Parse(s string) (string, bool) {
	if b, err := hex.DecodeString(s); err != nil || len(b) != sha256.Size {
		return "", false
	}
	return strings.ToLower(s), true
}
