// Package audit checks new files against an index: the batch's keys in,
// the index read by looking those keys up (IndexLookup) or by scanning it
// (IndexScan); exact and near matches with indexed documents
// (AuditExact, AuditCandidates, AuditVerify); out go the audit lines, the
// deduplicated copy and summary.json (WriteAudit, AuditSummary).
package audit
