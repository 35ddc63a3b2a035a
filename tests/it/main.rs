//! The integration tests: one binary (as ripgrep has it), so the crate and
//! Starlark are linked once, not once per file. Each module tests one area
//! through the real `yttcheck` binary on real files and repositories.

mod architecture;
mod cache;
mod check_command;
mod ci;
mod common;
mod conformance;
mod daemon;
mod delivery;
mod discovery;
mod docs;
mod engine_threads;
mod examples;
mod first_run;
mod fixes;
mod git_dir;
mod git_modes;
mod harbor_example;
mod hooks;
mod hostile_input;
mod hostile_pr;
mod install;
mod json_schema;
mod kubernetes;
mod kubernetes_crds;
mod kubernetes_upgrades;
mod literal_annotations;
mod lsp;
mod node_runs;
mod package_crs;
mod package_installs;
mod packaging;
mod policies;
mod private_libraries;
mod properties;
mod render;
mod rendered_diff_secrets;
mod replay;
mod runner;
mod schema_errors;
mod schema_surfaces;
mod template_functions;
mod validation_rules;
mod values_errors;
mod yaml_semantics;
