//! The access matrix: known agents, by category, against the site's main
//! paths, as robots.txt decides for each.

use webcanon_core::agents::{Category, WELL_KNOWN, registry};
use webcanon_core::robots::Robots;

use crate::checks::Context;
use crate::report::{AccessMatrix, AgentAccess};

/// Agents every matrix shows, named in robots.txt or not: the registry's
/// [`WELL_KNOWN`] ones and a few more that site owners often ask about.
pub fn is_notable(token: &str) -> bool {
    const MORE: &[&str] = &["Amazonbot", "meta-externalfetcher", "Claude-Web"];
    WELL_KNOWN.iter().chain(MORE).any(|t| t.eq_ignore_ascii_case(token))
}

/// At most this many paths are shown.
pub const MAX_PATHS: usize = 8;

/// The main paths of a site: `/`, the paths its robots.txt names in rules
/// (the places owners care about), then first-level sections of its
/// sitemap, up to [`MAX_PATHS`].
pub fn main_paths(robots: &Robots, sitemap_paths: &[String]) -> Vec<String> {
    let mut paths = vec!["/".to_string()];
    let mut push = |p: &str| {
        if paths.len() < MAX_PATHS && !paths.iter().any(|q| q == p) {
            paths.push(p.to_string());
        }
    };
    for group in robots.groups() {
        for rule in group.rules() {
            let pattern = rule.pattern;
            // A literal head is a path a reader understands; skip wildcards.
            if pattern.starts_with('/') && pattern.len() > 1 && !pattern.contains(['*', '$']) {
                push(pattern);
            }
        }
    }
    for path in sitemap_paths {
        push(path);
    }
    paths
}

/// The first-level sections (`/blog/`) of sampled sitemap pages (URLs or
/// site paths), in the order first seen.
pub fn sitemap_sections(pages: &[String]) -> Vec<String> {
    let mut sections: Vec<String> = Vec::new();
    for page in pages {
        let path = url::Url::parse(page).map(|u| u.path().to_string()).unwrap_or_else(|_| page.clone());
        let Some(rest) = path.strip_prefix('/') else { continue };
        let Some((first, _)) = rest.split_once('/') else { continue };
        let section = format!("/{first}/");
        if !first.is_empty() && !sections.contains(&section) {
            sections.push(section);
        }
    }
    sections
}

/// The matrix for the site's robots.txt, when it was read: the agents it
/// names and the notable ones ([`is_notable`]), by category, against [`main_paths`].
pub async fn matrix(ctx: &Context) -> Option<AccessMatrix> {
    let robots = ctx.robots().await?;
    if robots.not_robots().is_some() {
        return None;
    }
    let sections = sitemap_sections(&crate::checks::sitemap::sample_pages(ctx, 50).await);
    let paths = main_paths(&robots, &sections);
    let base = "http://site.invalid";
    let mut agents = Vec::new();
    for category in Category::ALL {
        for agent in registry().by_category(category) {
            let named = robots.has_group_for(agent.product_token);
            if !named && !is_notable(agent.token) {
                continue;
            }
            let rules = robots.rules_for(agent.product_token);
            let access = paths.iter().map(|p| rules.is_allowed(&format!("{base}{p}"))).collect();
            agents.push(AgentAccess {
                token: agent.token.to_string(),
                operator: agent.operator.to_string(),
                category: category.as_str().to_string(),
                access,
                named,
                key_directory: agent.key_directory.map(str::to_string),
            });
        }
    }
    Some(AccessMatrix { paths, agents })
}
