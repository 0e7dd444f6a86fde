// Package exact finds exact duplicates (ExactDuplicates): exact-key
// records in, grouped by the hash of the normalized text; out go the
// exact matches and the lines the signature pass skips.
package exact
