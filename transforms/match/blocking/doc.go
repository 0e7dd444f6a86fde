// Package blocking computes candidate keys for near-duplicate search.
//
// Documents that share a key are candidates, to be verified afterwards;
// documents that share no key are never compared. Two kinds of keys are
// provided:
//
//   - [Tables] turns a 64-bit SimHash fingerprint into one key per
//     pigeonhole table, so that every pair of fingerprints within Hamming
//     distance K shares at least one key (Manku, Jain and Das Sarma,
//     "Detecting near-duplicates for web crawling", WWW 2007).
//   - [Bands] turns a MinHash signature into one key per LSH band, so that a
//     pair of documents with Jaccard similarity s shares at least one key
//     with probability [Bands.Prob](s).
//
// Keys are uint64 values meant to be grouped on (a shuffle key); their bits
// carry no meaning beyond equality. The package does not depend on Beam.
package blocking
