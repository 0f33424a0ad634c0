//! The checks, one module each. A check reads what it needs through the
//! [`Context`] (resources are read once per audit, whichever check asks
//! first) and returns a [`CheckResult`](crate::report::CheckResult).

pub mod ai_agents_policy;
pub mod ai_txt;
pub mod apex_www;
pub mod llms_full_txt;
pub mod llms_txt;
pub mod page_signals;
pub mod robots_txt;
pub mod rsl;
pub mod sitemap;

use std::sync::Arc;

use webcanon_core::robots::Robots;

use crate::site::{Resource, Site};

/// What a check works with.
#[derive(Debug)]
pub struct Context {
    /// The site.
    pub site: Site,
    /// The product token robots.txt is evaluated for.
    pub agent: String,
}

impl Context {
    /// `/robots.txt` as read.
    pub async fn robots_resource(&self) -> Arc<Resource> {
        self.site.get("/robots.txt").await
    }

    /// `/robots.txt` parsed, when it was served with a 2xx status.
    pub async fn robots(&self) -> Option<Robots> {
        let resource = self.robots_resource().await;
        resource.is_success().then(|| Robots::parse(&resource.body))
    }
}
