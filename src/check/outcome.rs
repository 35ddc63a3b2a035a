//! What a check is asked (its options) and what it answers: each pair's
//! outcome and the run's result. Shared by the scheduler that makes them,
//! the memo and store that keep them, and the reports that read them.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use super::finding::{Finding, Location};
use crate::schema::DocType;
use crate::template::EvalOpts;
use crate::yaml::Document;

/// How to run a check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Worker threads (0: one per core).
    pub jobs: usize,
    pub eval: EvalOpts,
    /// Skip validations (`--dangerous-data-values-disable-validation`).
    pub skip_validation: bool,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Keep each pair's final data values and each library's schema (for
    /// `diff`).
    pub keep_values: bool,
    /// Render each pair's templates (`check --render`): a template that
    /// fails for an environment is a finding.
    pub render: bool,
    /// Report `schema/unused-value` (with `render`): only when every pair
    /// of each library checked is in the run (no environment filter, shard,
    /// or change selection), or the reads seen would be partial.
    pub unused_values: bool,
    /// Check rendered documents against Kubernetes schemas (needs
    /// `render`).
    pub kubernetes: Option<Arc<super::kubernetes::KubernetesCheck>>,
}

/// What happened to one pair.
#[derive(Debug, Clone)]
pub struct PairOutcome {
    pub name: String,
    pub library: String,
    pub environment: String,
    /// Findings of this pair (the same finding may belong to other pairs).
    pub findings: Vec<Finding>,
    pub duration: Duration,
    /// The final data values (with `keep_values`, when they could be computed).
    pub values: Option<Document>,
    /// What the pair's templates read (when they rendered).
    pub usage: Option<Arc<ValueUsage>>,
    /// The rendered documents (with `keep_values`, when they rendered).
    pub rendered: Option<Arc<Vec<Document>>>,
}

/// The result of a check.
#[derive(Debug, Clone, Default)]
pub struct CheckResult {
    /// All findings, de-duplicated across environments, worst first.
    pub findings: Vec<Finding>,
    /// Each pair's outcome, as it was made or kept (shared with the memo
    /// that keeps it: a daemon's check of thousands of findings copies
    /// none of them).
    pub pairs: Vec<Arc<PairOutcome>>,
    /// The findings reported for each pair, by index into `findings`, in
    /// the pair's order: each of its own findings as the merged finding it
    /// became; suppression drops some and sets their severities. Empty (a
    /// result made otherwise): each pair's own findings stand.
    pub reported: Vec<Vec<u32>>,
    pub elapsed: Duration,
    /// Each library's schema (with `keep_values`; `None` when it has none or
    /// it could not be built).
    pub schemas: std::collections::BTreeMap<String, Option<DocType>>,
    /// The Kubernetes version each environment targets, when rendered
    /// objects were checked against Kubernetes (empty otherwise).
    pub kubernetes_versions: std::collections::BTreeMap<String, String>,
    /// The findings a suppression dropped, each with what dropped it
    /// (`inline ignore envs/prod.yml:3`, `` `rules:` turns X off ``, the
    /// baseline): a pull request that silences its own finding is told.
    pub silenced: Vec<(Finding, String)>,
}

impl CheckResult {
    /// The same result with only the findings `keep` accepts (by index):
    /// what a pull request's verdict presents of its new findings, or of
    /// those that stood on its base.
    pub fn with_findings(&self, keep: impl Fn(usize) -> bool) -> CheckResult {
        let mut new_index = vec![None; self.findings.len()];
        let mut findings = Vec::new();
        for (i, f) in self.findings.iter().enumerate() {
            if keep(i) {
                new_index[i] = Some(findings.len() as u32);
                findings.push(f.clone());
            }
        }
        CheckResult {
            findings,
            pairs: self.pairs.clone(),
            reported: self
                .reported
                .iter()
                .map(|r| r.iter().filter_map(|&i| new_index[i as usize]).collect())
                .collect(),
            elapsed: self.elapsed,
            schemas: self.schemas.clone(),
            kubernetes_versions: self.kubernetes_versions.clone(),
            silenced: self.silenced.clone(),
        }
    }

    /// The findings reported for the pair at `index` of `pairs`, as the
    /// run reports them (merged across environments; after suppression,
    /// those that stay, with the severity they are reported with).
    pub fn findings_of(&self, index: usize) -> Vec<&Finding> {
        match self.reported.get(index) {
            Some(found) => found
                .iter()
                .filter_map(|&i| self.findings.get(i as usize))
                .collect(),
            None => self
                .pairs
                .get(index)
                .map(|p| p.findings.iter().collect())
                .unwrap_or_default(),
        }
    }
}

/// What one rendered pair read, and what its library declares.
#[derive(Debug, Clone, Default)]
pub struct ValueUsage {
    /// Declared paths (`db.host`), with where each is declared (shared by
    /// the pairs of a library when its schema declares them).
    pub declared: Declared,
    /// Paths read (a struct consumed whole counts as its own path); each
    /// covers the paths below it.
    pub read: BTreeSet<String>,
    /// Paths read that held null (they cover only themselves).
    pub null: BTreeSet<String>,
}

/// A library's declared data values paths, with where each is declared.
pub type Declared = Arc<Vec<(String, Option<Location>)>>;
