//! The site's RSL license (Really Simple Licensing 1.0) read for the use
//! the agent declares, its terms turned into usage warnings: never a
//! block, since whether a page may be fetched is robots.txt's to say.
//!
//! The documents looked at, in order: those the page names (`Link:`
//! header, then `<link rel="license" type="application/rsl+xml">`), then
//! the `License:` records of its origin's robots.txt. The first whose
//! `content` entries cover the page decides; each is requested at most
//! once per cache time, through the SSRF guard and only when robots.txt
//! clearly permits it.

use std::fmt::Write as _;
use std::sync::Arc;

use url::Url;
use webcanon_core::agents::registry;
use webcanon_core::policy::RobotsMode;
use webcanon_core::rsl::{LicenseVerdict, Usage, UsageDecision};

use super::handle::Client;
use crate::robots_fetch::{fetch_robots, robots_url};
use crate::rsl_cache::{LoadedRsl, RSL_ACCEPT, RSL_MAX_BYTES};
use crate::warning::{Warning, WarningCode, WarningSource};

/// At most this many documents are read for one page: a page or a
/// robots.txt naming hundreds must not make hundreds of requests.
const MAX_DOCUMENTS: usize = 4;

impl Client {
    /// The use this client declares for what it fetches: the `purpose`
    /// option, or else the use of its agent's registry category
    /// ([`Category::rsl_usage`](webcanon_core::agents::Category::rsl_usage)),
    /// or `None` (then no RSL license is read).
    pub fn purpose(&self) -> Option<Usage> {
        self.declared_use(self.inner.fetch.purpose)
    }

    /// The use declared for a fetch whose options name `purpose`: that
    /// one, or else the agent's registry category's.
    fn declared_use(&self, purpose: Option<Usage>) -> Option<Usage> {
        purpose.or_else(|| registry().get(self.agent()).and_then(|a| a.category.rsl_usage()))
    }

    /// The warnings of the RSL license that covers `page` for the use a
    /// fetch declares (`purpose`, else the agent's category's); `named` are
    /// the documents the page itself names.
    pub(super) async fn license_warnings(&self, page: &Url, named: &[Url], purpose: Option<Usage>) -> Vec<Warning> {
        let Some(purpose) = self.declared_use(purpose) else { return Vec::new() };
        let mut locations = named.to_vec();
        for location in self.robots_licenses(page).await {
            if !locations.contains(&location) {
                locations.push(location);
            }
        }
        let mut warnings = Vec::new();
        for location in locations.into_iter().take(MAX_DOCUMENTS) {
            let loaded = self.load_rsl(&location).await;
            match &loaded.document {
                Err(why) => warnings.push(Warning::new(
                    WarningCode::RslUnavailable,
                    WarningSource::Rsl,
                    format!(
                        "the RSL license {location} that the site names could not be read ({why}); its terms for `{purpose}` are unknown"
                    ),
                )),
                Ok(document) => {
                    if let Some(decision) = document.decide(page.as_str(), purpose) {
                        warnings.extend(decision_warnings(&location, page, purpose, &decision));
                        break;
                    }
                }
            }
        }
        warnings
    }

    /// The `License:` URLs of the robots.txt of `page`'s origin (already
    /// cached by the admission of the page); none under `ignore`, which
    /// fetches no robots.txt.
    async fn robots_licenses(&self, page: &Url) -> Vec<Url> {
        let inner = &self.inner;
        if inner.mode == RobotsMode::Ignore {
            return Vec::new();
        }
        let origin = page.origin().ascii_serialization();
        let robots_url = robots_url(page);
        let (cached, _) =
            inner.cache.get(&origin, || fetch_robots(&inner.http, &robots_url, inner.auth_disallows)).await;
        cached.robots().map_or_else(Vec::new, |robots| robots.licenses().filter_map(|l| Url::parse(l).ok()).collect())
    }

    /// The RSL document at `url`, through the cache. Loading it is a
    /// request like any other: guarded, paced, and skipped unless
    /// robots.txt permits it.
    async fn load_rsl(&self, url: &Url) -> Arc<LoadedRsl> {
        self.inner.licenses.get(url, || self.fetch_hint(url, RSL_ACCEPT, RSL_MAX_BYTES)).await
    }
}

/// The warnings one decision gives: prohibited, payment required, license
/// server; each names the document, the page and the `content` pattern.
fn decision_warnings(document: &Url, page: &Url, purpose: Usage, decision: &UsageDecision<'_>) -> Vec<Warning> {
    let content = decision.content;
    let entry = format!("content `{}`, line {}", content.url, content.line);
    let mut warnings = Vec::new();
    if decision.verdict == LicenseVerdict::Prohibited {
        let detail = match decision.prohibited_by {
            Some(token) => format!(
                "the RSL license {document} prohibits `{token}` for {page} ({entry}); the declared use is `{purpose}`"
            ),
            None => {
                let permitted = decision
                    .license
                    .and_then(|l| l.permits.usage.as_ref())
                    .map(|u| u.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default();
                format!(
                    "the RSL license {document} permits only {permitted} for {page} ({entry}); the declared use `{purpose}` is not among them"
                )
            }
        };
        warnings.push(Warning::new(WarningCode::RslProhibited, WarningSource::Rsl, detail));
    }
    if let Some(payment) = decision.payment_required() {
        let mut detail = format!(
            "the RSL license {document} asks for payment for `{purpose}` on {page} ({entry}): `{}`",
            payment.type_name
        );
        for amount in &payment.amounts {
            let _ = write!(detail, ", {} {}", amount.value, amount.currency);
        }
        if let Some(standard) = &payment.standard {
            let _ = write!(detail, "; standard terms at {standard}");
        }
        if let Some(custom) = &payment.custom {
            let _ = write!(detail, "; custom terms at {custom}");
        }
        warnings.push(Warning::new(WarningCode::RslPaymentRequired, WarningSource::Rsl, detail));
    }
    if let Some(server) = decision.license_server()
        && decision.verdict != LicenseVerdict::Prohibited
    {
        warnings.push(Warning::new(
            WarningCode::RslLicenseServer,
            WarningSource::Rsl,
            format!(
                "the RSL license {document} requires a license from the server {server} for {page} ({entry}), even a free one"
            ),
        ));
    }
    warnings
}
