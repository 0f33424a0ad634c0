//! Which `content` entry covers a URL, and what its licenses say about a
//! declared use.

use url::Url;

use crate::robots::MatchablePath;

use super::model::{Content, License, Payment, RslDocument};
use super::usage::Usage;

/// What a license says about one use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LicenseVerdict {
    /// A `permits type="usage"` token covers the use, and no prohibition
    /// concerns it.
    Permitted,
    /// A `prohibits type="usage"` token concerns the use, or the license
    /// lists the uses it permits and this one is not among them.
    Prohibited,
    /// The license neither permits nor prohibits any use by name.
    NotStated,
}

impl LicenseVerdict {
    /// The verdict as JSON spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            LicenseVerdict::Permitted => "permitted",
            LicenseVerdict::Prohibited => "prohibited",
            LicenseVerdict::NotStated => "not_stated",
        }
    }
}

/// The terms that apply to one URL for one declared use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsageDecision<'a> {
    /// The `content` entry that covers the URL.
    pub content: &'a Content,
    /// The license that decided: the most favourable of the entry's
    /// alternatives; `None` when the entry has none.
    pub license: Option<&'a License>,
    /// What that license says about the use.
    pub verdict: LicenseVerdict,
    /// The prohibited token that concerns the use; `None` when the use is
    /// prohibited only by not being among those permitted.
    pub prohibited_by: Option<Usage>,
}

impl<'a> UsageDecision<'a> {
    /// The deciding license's payment, when it costs money and the use is
    /// not prohibited (a license that prohibits a use does not sell it).
    pub fn payment_required(&self) -> Option<&'a Payment> {
        if self.verdict == LicenseVerdict::Prohibited {
            return None;
        }
        self.license?.payment.as_ref().filter(|p| p.requires_payment())
    }

    /// The license server a license must be obtained from, even a free one
    /// (RSL 1.0 §3.2, `server`).
    pub fn license_server(&self) -> Option<&'a str> {
        self.content.server.as_deref()
    }
}

impl License {
    /// What this license says about `purpose`, and the prohibited token
    /// that concerns it. A prohibition wins over a permission; a list of
    /// permitted uses excludes the others; a license that names no use
    /// says nothing.
    pub fn verdict(&self, purpose: Usage) -> (LicenseVerdict, Option<Usage>) {
        if let Some(token) = self.prohibits.usage.iter().flatten().find(|t| t.overlaps(purpose)) {
            return (LicenseVerdict::Prohibited, Some(*token));
        }
        match &self.permits.usage {
            Some(permitted) if permitted.iter().any(|t| t.covers(purpose)) => (LicenseVerdict::Permitted, None),
            Some(_) => (LicenseVerdict::Prohibited, None),
            None => (LicenseVerdict::NotStated, None),
        }
    }
}

/// Whether `pattern` (a `content` `url`) covers the page, and how
/// specific it is: the robots.txt precedence length of its path pattern.
fn specificity(pattern: &str, path: &MatchablePath, page: Option<&Url>) -> Option<usize> {
    if pattern.starts_with('/') || pattern.starts_with('*') {
        return path.matched_by(pattern);
    }
    let base = Url::parse(pattern).ok().filter(|u| matches!(u.scheme(), "http" | "https"))?;
    if page?.origin() != base.origin() {
        return None;
    }
    let mut path_pattern = base.path().to_string();
    if let Some(query) = base.query() {
        path_pattern.push('?');
        path_pattern.push_str(query);
    }
    path.matched_by(&path_pattern)
}

impl RslDocument {
    /// The `content` entry that covers `url` (absolute), by the URL
    /// matching rules of RFC 9309 that RSL 1.0 §3.2 adopts: a full URL
    /// covers its own origin only, a path pattern any; `*` and `$` as in
    /// robots.txt; when several cover it, the most specific (longest
    /// pattern, RFC 9309 §2.2.2) wins, and the first in the document at a
    /// tie.
    pub fn content_for(&self, url: &str) -> Option<&Content> {
        let page = Url::parse(url).ok();
        let path = MatchablePath::of(url);
        let mut best: Option<(usize, &Content)> = None;
        for content in &self.contents {
            if let Some(length) = specificity(&content.url, &path, page.as_ref())
                && best.is_none_or(|(longest, _)| length > longest)
            {
                best = Some((length, content));
            }
        }
        best.map(|(_, content)| content)
    }

    /// The terms for `purpose` on `url`: `None` when no entry covers the
    /// URL. Of an entry's licenses, the most favourable decides (RSL 1.0
    /// §3.3: each is an alternative the client may take): permitted free
    /// of charge, then permitted for payment, then not stated (free, then
    /// paid), then prohibited; the first in the document at a tie.
    pub fn decide(&self, url: &str, purpose: Usage) -> Option<UsageDecision<'_>> {
        let content = self.content_for(url)?;
        let rank = |license: &License| {
            let (verdict, _) = license.verdict(purpose);
            let paid = usize::from(license.payment.as_ref().is_some_and(Payment::requires_payment));
            match verdict {
                LicenseVerdict::Permitted => paid,
                LicenseVerdict::NotStated => 2 + paid,
                LicenseVerdict::Prohibited => 4,
            }
        };
        let license = content.licenses.iter().min_by_key(|l| rank(l));
        let (verdict, prohibited_by) = license.map_or((LicenseVerdict::NotStated, None), |l| l.verdict(purpose));
        Some(UsageDecision { content, license, verdict, prohibited_by })
    }
}
