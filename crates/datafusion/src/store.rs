//! Inputs named by URL: files and prefixes in the object stores of a DataFusion session.
//!
//! A table input is a URL when it starts with a scheme and `://` (`s3://bucket/logs/`,
//! `file:///var/log/app.ndjson`, `memory:///x`); anything else is a local path. The store of a
//! URL is the one the session's `RuntimeEnv` registers for its scheme and authority
//! (`SessionContext::register_object_store`; `file://` is registered by default), looked up
//! when a scan is planned (to list) and when it runs (to read): the crate has no configuration
//! of its own.
//!
//! A URL names one object, or else a "directory": the objects directly under the prefix
//! `path/` (not in deeper prefixes), whose names do not start with `.`, in name order, as a
//! local directory is read.

use std::sync::Arc;

use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::object_store::{self, GetOptions, ObjectStore};

/// Whether `input` is a URL (a scheme, then `://`) rather than a local path.
pub(crate) fn is_url(input: &str) -> bool {
    let Some((scheme, _)) = input.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// One object to read: its store's URL (`s3://bucket/`), its location there, its length.
#[derive(Clone, Debug)]
pub(crate) struct Listed {
    pub(crate) store: String,
    pub(crate) location: String,
    pub(crate) len: u64,
}

/// The store of `store_url` (as [`Listed::store`] spells it) in the session's registry.
pub(crate) fn store_of(
    runtime: &datafusion::execution::runtime_env::RuntimeEnv,
    store_url: &str,
) -> Result<Arc<dyn ObjectStore>> {
    runtime.object_store(ObjectStoreUrl::parse(store_url)?)
}

/// The objects `url` names: itself, or the objects directly under it as a prefix.
pub(crate) async fn list(state: &dyn Session, url: &str) -> Result<Vec<Listed>> {
    let parsed = ListingTableUrl::parse(url)?;
    let store_url = parsed.object_store();
    let store = state.runtime_env().object_store(&store_url)?;
    let prefix = parsed.prefix().clone();
    let listed = |location: &ObjectPath, len| Listed {
        store: store_url.as_str().to_owned(),
        location: location.as_ref().to_owned(),
        len,
    };
    if !parsed.is_collection() && !prefix.as_ref().is_empty() {
        match store
            .get_opts(&prefix, GetOptions::new().with_head(true))
            .await
        {
            Ok(got) => return Ok(vec![listed(&got.meta.location, got.meta.size)]),
            // Not an object: a prefix, perhaps.
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(error(url, e)),
        }
    }
    let listing = store
        .list_with_delimiter(Some(&prefix))
        .await
        .map_err(|e| error(url, e))?;
    if listing.objects.is_empty() && listing.common_prefixes.is_empty() {
        return Err(DataFusionError::External(
            format!("{url}: no such object or prefix").into(),
        ));
    }
    let mut objects: Vec<Listed> = listing
        .objects
        .iter()
        .filter(|o| !o.location.filename().is_some_and(|n| n.starts_with('.')))
        .map(|o| listed(&o.location, o.size))
        .collect();
    objects.sort_by(|a, b| a.location.cmp(&b.location));
    Ok(objects)
}

fn error(url: &str, e: object_store::Error) -> DataFusionError {
    DataFusionError::External(format!("{url}: {e}").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_have_a_scheme_and_local_paths_do_not() {
        for url in [
            "s3://bucket/logs/",
            "file:///tmp/x",
            "memory:///a",
            "s3a+x.y-z://b",
        ] {
            assert!(is_url(url), "{url}");
        }
        for path in [
            "/tmp/x",
            "logs/a.ndjson",
            "C:\\logs",
            "a:b",
            "://x",
            "1s3://b",
            "",
        ] {
            assert!(!is_url(path), "{path}");
        }
    }
}
