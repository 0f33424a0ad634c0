//! Markdown alternatives of a page (the fetch's fourth step): the copy an
//! llms.txt lists, a `rel="alternate" type="text/markdown"` link, or the
//! answer to `Accept: text/markdown`.
//!
//! A candidate is a hint, never an authority: it goes through the SSRF
//! guard and the robots.txt of its own origin (fetched and evaluated when
//! that is another origin) like any URL, every redirect hop too. Because
//! the page itself is always there to fall back to, a candidate is skipped
//! whenever robots.txt does not clearly permit it (a disallow, or an
//! unreachable robots.txt), in `report_only` mode as well; only `ignore`
//! mode leaves robots.txt out. A candidate that is refused, fails or is not
//! Markdown leaves the result to the page itself, and the result says so.

use std::sync::Arc;

use url::Url;
use webcanon_core::policy::{RobotsMode, Verdict};

use super::handle::Client;
use super::results::{Alternative, AlternativeSource, RedirectHop, SkipReason};
use crate::error::Error;
use crate::hint_cache::HintFetched;
use crate::http::{Answer, Pace};
use crate::llms_hint::{LLMS_ACCEPT, LLMS_MAX_BYTES, LoadedLlms, llms_txt_locations, markdown_copy_in};
use crate::page;
use crate::warning::Warning;

/// A candidate to try.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub url: Url,
    pub source: AlternativeSource,
    pub llms_txt: Option<Url>,
}

impl Candidate {
    fn outcome(&self, skipped: Option<(SkipReason, String)>) -> Alternative {
        let used = skipped.is_none();
        let (skipped_reason, detail) = skipped.map_or((None, None), |(r, d)| (Some(r), Some(d)));
        Alternative {
            url: self.url.to_string(),
            source: self.source,
            used,
            skipped_reason,
            detail,
            llms_txt: self.llms_txt.as_ref().map(Url::to_string),
        }
    }
}

/// The answer of a candidate that was used.
#[derive(Debug)]
pub(super) struct Taken {
    pub answer: Answer,
    pub redirects: Vec<RedirectHop>,
    pub warnings: Vec<Warning>,
}

impl Client {
    /// The Markdown copy of `page` listed in the llms.txt that covers it
    /// (the most specific one found on its path).
    pub(super) async fn llms_candidate(&self, page: &Url) -> Option<Candidate> {
        if page.query().is_some() {
            return None;
        }
        for location in llms_txt_locations(page) {
            let loaded = self.load_llms(&location).await;
            if let Some(file) = &loaded.document {
                return self.candidate_in(&loaded, file, page);
            }
        }
        None
    }

    /// The Markdown copy of `page` listed in the llms.txt at `file_url`
    /// (one the page names with `rel="describedby"`).
    pub(super) async fn described_candidate(&self, file_url: &Url, page: &Url) -> Option<Candidate> {
        let loaded = self.load_llms(file_url).await;
        let file = loaded.document.as_ref()?;
        self.candidate_in(&loaded, file, page)
    }

    fn candidate_in(&self, loaded: &LoadedLlms, file: &webcanon_core::llms::LlmsTxt, page: &Url) -> Option<Candidate> {
        let url = markdown_copy_in(file, &loaded.url, page)?;
        Some(Candidate { url, source: AlternativeSource::LlmsTxt, llms_txt: Some(loaded.url.clone()) })
    }

    /// The Markdown copy of `page` that the llms.txt covering it lists: the
    /// candidate [`Client::fetch`] tries before the page itself, found the
    /// same way (the files read through the client's llms.txt cache, each
    /// request paced and admitted by robots.txt). `None` when no llms.txt
    /// on the page's path lists one, or when the page has a query.
    ///
    /// A crawler asks this before fetching a page so that a copy it also
    /// has queued is requested once, not once as a page and once as the
    /// page's alternative.
    pub async fn llms_markdown_copy(&self, page: &Url) -> Option<Url> {
        self.llms_candidate(page).await.map(|candidate| candidate.url)
    }

    /// The links of the llms.txt at `file_url`, resolved against it, in
    /// file order: read through the same cache as the Markdown copies
    /// [`Client::fetch`] looks for, so that reading a site's llms.txt for
    /// its links and then fetching its pages requests the file once. None
    /// when there is no llms.txt there (a 4xx, a refusal, a body that is
    /// not llms.txt Markdown).
    pub async fn llms_txt_links(&self, file_url: &Url) -> Vec<Url> {
        let loaded = self.load_llms(file_url).await;
        let Some(file) = &loaded.document else { return Vec::new() };
        file.links().filter_map(|link| loaded.url.join(link.link.url.trim()).ok()).collect()
    }

    /// The llms.txt at `url`, through the cache. Loading it is a request
    /// like any other: guarded, paced, and skipped unless robots.txt
    /// permits it.
    async fn load_llms(&self, url: &Url) -> Arc<LoadedLlms> {
        self.inner.llms.get(url, || self.fetch_hint(url, LLMS_ACCEPT, LLMS_MAX_BYTES)).await
    }

    /// Tries `candidate`: its answer when it is usable Markdown, otherwise
    /// why not.
    pub(super) async fn try_candidate(&self, candidate: &Candidate, max_bytes: usize) -> (Alternative, Option<Taken>) {
        let (answer, redirects, warnings) =
            match self.fetch_strict(&candidate.url, page::ACCEPT_MARKDOWN_FIRST, max_bytes, Pace::Paced).await {
                Ok(taken) => taken,
                Err(err) => {
                    let reason = match &err {
                        Error::Policy(_) => SkipReason::Robots,
                        Error::Ssrf(_) => SkipReason::Ssrf,
                        _ => SkipReason::FetchError,
                    };
                    return (candidate.outcome(Some((reason, err.to_string()))), None);
                }
            };
        if answer.status >= 400 {
            let detail = format!("{} answered HTTP {}", answer.url, answer.status);
            return (candidate.outcome(Some((SkipReason::HttpStatus, detail))), None);
        }
        if !page::is_markdown(&answer) {
            let found = answer.header("content-type").unwrap_or("no content type");
            let detail = format!("{} is {found}, not Markdown", answer.url);
            return (candidate.outcome(Some((SkipReason::NotMarkdown, detail))), None);
        }
        (candidate.outcome(None), Some(Taken { answer, redirects, warnings }))
    }

    /// A request that robots.txt must clearly permit, whatever the mode
    /// (except `ignore`): for hints (llms.txt files and their candidates),
    /// which are optional and never worth a disallowed request.
    pub(super) async fn fetch_strict(
        &self,
        url: &Url,
        accept: &str,
        max_bytes: usize,
        pace: Pace,
    ) -> Result<(Answer, Vec<RedirectHop>, Vec<Warning>), Error> {
        self.vet(url).await?;
        let (_, mut warnings) = self.admit_as(url, Admission::Strict).await?;
        let (answer, redirects) = self.follow(url, accept, max_bytes, Admission::Strict, pace, &mut warnings).await?;
        Ok((answer, redirects, warnings))
    }

    /// A hint file (an llms.txt, an RSL document) requested strictly, and
    /// how its load ended: a 5xx, a 429, a network failure or an
    /// unreachable robots.txt is a failure, retried sooner; any other
    /// answer or refusal means there is no file.
    pub(super) async fn fetch_hint(&self, url: &Url, accept: &str, max_bytes: usize) -> HintFetched {
        match self.fetch_strict(url, accept, max_bytes, Pace::Paced).await {
            Ok((answer, _, _)) if (200..300).contains(&answer.status) => HintFetched::Found(answer.body),
            Ok((answer, _, _)) if answer.status >= 500 || answer.status == 429 => {
                HintFetched::Failed(format!("HTTP {}", answer.status))
            }
            Ok((answer, _, _)) => HintFetched::Absent(format!("HTTP {}", answer.status)),
            Err(Error::Fetch(err)) => HintFetched::Failed(err.to_string()),
            // An unreachable robots.txt passes; a disallow stays.
            Err(Error::Policy(policy)) if policy.evidence.verdict == Verdict::UnknownUnreachable => {
                HintFetched::Failed(policy.to_string())
            }
            Err(err) => HintFetched::Absent(err.to_string()),
        }
    }
}

/// How a request is admitted by robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Admission {
    /// As the client's mode says.
    Mode,
    /// Refused unless robots.txt permits it, in every mode but `ignore`.
    Strict,
}

impl Admission {
    pub(super) fn blocks(self, mode: RobotsMode, verdict: Verdict) -> bool {
        match self {
            Admission::Mode => mode.blocks(verdict),
            Admission::Strict => mode != RobotsMode::Ignore && RobotsMode::Respect.blocks(verdict),
        }
    }
}
