//! Rendered documents against Kubernetes schemas (`crate::kubernetes`),
//! as findings of the pair.

use crate::diagnostics::{Finding, Related};
use crate::kubernetes::crd::CrdVersion;
use crate::kubernetes::{validate_documents, Schemas};
use crate::yaml::Document;

use std::sync::Arc;

use super::from_errors::Subject;

/// What every pair's documents are checked against, for one run.
#[derive(Debug)]
pub struct KubernetesCheck {
    /// The schemas of the default version.
    pub schemas: Schemas,
    /// Environments (a name, or a glob) that target another version, with
    /// that version's schemas, in the configuration's order (an exact name
    /// wins over a glob).
    pub by_environment: Vec<(String, Arc<Schemas>)>,
    /// CRDs the configuration names (`kubernetes.crds`).
    pub crds: Vec<CrdVersion>,
    /// Everything the findings depend on besides the documents (the
    /// options, the configuration's CRDs, what identifies the schemas): it
    /// is part of every pair's memo key.
    pub fingerprint: String,
}

impl KubernetesCheck {
    /// The schemas (and so the Kubernetes version) of an environment.
    pub fn schemas_for(&self, environment: &str) -> &Schemas {
        let exact = self.by_environment.iter().find(|(p, _)| p == environment);
        let globbed = || {
            self.by_environment.iter().find(|(p, _)| {
                crate::workspace::patterns::glob(p).is_ok_and(|m| m.is_match(environment))
            })
        };
        exact.or_else(globbed).map_or(&self.schemas, |(_, s)| s)
    }

    /// The findings of one pair's rendered documents.
    pub(super) fn check(
        &self,
        docs: &[Document],
        is_values_file: &dyn Fn(&str) -> bool,
        values: Option<&Document>,
        who: &Subject,
    ) -> Vec<Finding> {
        let pair = crate::kubernetes::validate::PairDocs {
            docs,
            crds: &self.crds,
            is_values_file,
            values,
        };
        let schemas = who
            .environments
            .first()
            .map_or(&self.schemas, |e| self.schemas_for(e));
        validate_documents(schemas, &pair)
            .into_iter()
            .map(|v| {
                let mut f = who.finding(v.rule, v.message, v.pos.location());
                f.key_path = v.key_path;
                f.related = v
                    .related
                    .into_iter()
                    .filter_map(|(pos, message)| {
                        pos.location().map(|location| Related { location, message })
                    })
                    .collect();
                f
            })
            .collect()
    }
}
