//! `check_url`: the robots.txt verdict for a URL, without fetching the page.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Deserialize;
use webcanon_client::agent::ProductToken;
use webcanon_client::web_url::WebUrl;

use super::{Answer, Shared};
use crate::Initiator;
use crate::output::CheckOutput;
use crate::refusal::Failure;
use crate::text::{robots_lines, warning_lines};

/// Arguments of the `check_url` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckArgs {
    /// The http(s) URL to check.
    pub url: WebUrl,
    /// The robots.txt product token to check for (e.g. `GPTBot`); omit it for the server's own agent.
    #[serde(default, deserialize_with = "crate::arguments::optional_agent")]
    pub agent: Option<ProductToken>,
}

/// Runs the `check_url` tool.
pub(crate) async fn run(shared: &Shared, args: CheckArgs) -> Result<Answer, Failure> {
    let client = shared.client_for(args.agent.as_ref(), Initiator::Autonomous)?;
    let agent = client.agent().to_string();
    let webcanon_client::RobotsCheck { robots: evidence, warnings, .. } =
        client.check(&args.url).await.map_err(|e| Failure::from_client(&e, args.url.as_str(), &agent))?;
    let mode = shared.mode();
    let output = CheckOutput {
        url: args.url.to_string(),
        agent,
        mode,
        fetch_allowed: !mode.blocks(evidence.verdict),
        robots: evidence,
        warnings,
    };
    let mut header = String::new();
    let _ = writeln!(
        header,
        "robots.txt check of {} for agent `{}` (the page itself was not requested)",
        output.url, output.agent
    );
    robots_lines(&mut header, &output.robots);
    let decision = if output.fetch_allowed { "would go ahead" } else { "would be refused" };
    let _ = writeln!(header, "Fetch: {decision} (the server applies robots.txt in mode {})", output.mode.as_str());
    warning_lines(&mut header, &output.warnings);
    Ok(Answer::new(header.trim_end().to_string(), None, &output))
}
