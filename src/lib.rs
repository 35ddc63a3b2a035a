//! yttcheck: a fast, git-aware checker for Carvel ytt configuration.

pub mod yaml;
