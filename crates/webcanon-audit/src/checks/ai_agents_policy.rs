//! `ai-agents-policy` 1.0.0: AI agents are addressed on purpose: named
//! groups for the agents the site decides about, rules that first-match
//! and longest-match crawlers read alike.
//!
//! Steps:
//! - `training-vs-retrieval` (0.4): the robots.txt treats AI training agents
//!   and live-retrieval agents (AI search, user-triggered fetches)
//!   differently, or names them at all. Identical access for both, the
//!   copy-pasted block of §7.2, is a warning: either no AI traffic at all or
//!   training without consent. "Block training, allow retrieval" is the
//!   common intent.
//! - `no-accidental-blocks` (0.35): no operator's retrieval agent is refused
//!   on a main path where its training agent is allowed: exactly backwards
//!   from what owners want (§2.7), and a failure.
//! - `up-to-date` (0.25): legacy tokens (`anthropic-ai`, `Claude-Web`) come
//!   with their successors, and no token is a likely misspelling of a known
//!   one (§7.5).
//!
//! Skipped when robots.txt could not be read (the `robots-txt` check says why).
//!
//! Evidence: `training-vs-retrieval` `{training: [{token, access}],
//! retrieval: [{token, access}], paths, named_ai_agents}`;
//! `no-accidental-blocks` `{conflicts: [{operator, retrieval, training,
//! path}]}`; `up-to-date` `{legacy_without_successor: [{token, successor,
//! line}], misspelled: [{token, suggestion, line}], unknown: [tokens]}`.

use serde_json::{Value, json};
use webcanon_core::agents::{Agent, Category, registry};
use webcanon_core::robots::Robots;

use super::Context;
use crate::access::{is_notable, main_paths};
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};

/// The check id.
pub const ID: &str = "ai-agents-policy";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "AI training and retrieval agents are treated on purpose";

const BASE: &str = "http://site.invalid";

fn is_training(agent: &Agent) -> bool {
    agent.category == Category::AiTraining
}

fn is_retrieval(agent: &Agent) -> bool {
    matches!(agent.category, Category::AiSearch | Category::AiUserFetch)
}

/// Whether `agent` may fetch each of `paths`.
fn access(robots: &Robots, agent: &Agent, paths: &[String]) -> Vec<bool> {
    let rules = robots.rules_for(agent.product_token);
    paths.iter().map(|p| rules.is_allowed(&format!("{BASE}{p}"))).collect()
}

/// The agents a decision is about: the ones the file names, plus the major
/// agents of each operator whose agents it names.
fn relevant_agents(robots: &Robots) -> Vec<&'static Agent> {
    let registry = registry();
    let mut named: Vec<&'static Agent> = Vec::new();
    for group in robots.groups() {
        for ua in group.user_agents().filter(|a| !a.global) {
            if let Some(agent) = registry.get(ua.token)
                && !named.iter().any(|a| a.token == agent.token)
            {
                named.push(agent);
            }
        }
    }
    named
}

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let Some(robots) = ctx.robots().await.filter(|r| r.not_robots().is_none()) else {
        return CheckResult::skipped(ID, VERSION, TITLE, "robots.txt could not be read; see the robots-txt check");
    };
    let paths = main_paths(&robots, &[]);
    let named = relevant_agents(&robots);
    let mut findings = Vec::new();
    let steps = vec![
        split_step(&robots, &named, &paths, &mut findings),
        conflicts_step(&robots, &named, &paths, &mut findings),
        up_to_date_step(&robots, &named, &mut findings),
    ];
    CheckResult::from_steps(ID, VERSION, TITLE, steps, findings)
}

fn split_step(robots: &Robots, named: &[&'static Agent], paths: &[String], findings: &mut Vec<Finding>) -> StepResult {
    let row = |a: &&Agent| json!({"token": a.token, "access": access(robots, a, paths)});
    let training: Vec<&Agent> = named.iter().copied().filter(|a| is_training(a)).collect();
    let retrieval: Vec<&Agent> = named.iter().copied().filter(|a| is_retrieval(a)).collect();
    let evidence = json!({
        "paths": paths,
        "training": training.iter().map(row).collect::<Vec<_>>(),
        "retrieval": retrieval.iter().map(row).collect::<Vec<_>>(),
        "named_ai_agents": named.iter().filter(|a| a.category.is_ai()).count(),
    });
    let status = if training.is_empty() && retrieval.is_empty() {
        findings.push(
            Finding::new(Severity::Warn, "robots.txt names no AI agent: training and live retrieval get the same access as every other crawler")
                .fix("Decide per role: e.g. disallow training agents (GPTBot, ClaudeBot, CCBot) and allow retrieval agents (OAI-SearchBot, ChatGPT-User, Claude-User, PerplexityBot); `webcanon render --preset block-training-allow-retrieval` writes such a policy.")
                .at("/robots.txt"),
        );
        Status::Warn
    } else if !training.is_empty() && !retrieval.is_empty() {
        let training_access: Vec<Vec<bool>> = training.iter().map(|a| access(robots, a, paths)).collect();
        let retrieval_access: Vec<Vec<bool>> = retrieval.iter().map(|a| access(robots, a, paths)).collect();
        if training_access.iter().all(|t| retrieval_access.iter().all(|r| r == t)) {
            findings.push(
                Finding::new(Severity::Warn, "training and live-retrieval agents get exactly the same access: either no AI traffic at all, or training without a decision")
                    .fix("Give retrieval agents (AI search, user-triggered fetches) their own group; the common intent is to block training and allow retrieval.")
                    .at("/robots.txt"),
            );
            Status::Warn
        } else {
            Status::Pass
        }
    } else {
        let (named_role, missing_role) =
            if training.is_empty() { ("retrieval", "training") } else { ("training", "retrieval") };
        findings.push(
            Finding::new(
                Severity::Info,
                format!("robots.txt names {named_role} agents but no {missing_role} agent; those follow the `*` group"),
            )
            .at("/robots.txt"),
        );
        Status::Pass
    };
    StepResult::new("training-vs-retrieval", "Training and retrieval agents are told apart", 0.4, status)
        .evidence(evidence)
}

fn conflicts_step(
    robots: &Robots,
    named: &[&'static Agent],
    paths: &[String],
    findings: &mut Vec<Finding>,
) -> StepResult {
    let registry = registry();
    let mut conflicts = Vec::new();
    let mut operators: Vec<&str> = named.iter().filter(|a| a.category.is_ai()).map(|a| a.operator).collect();
    operators.sort_unstable();
    operators.dedup();
    for operator in operators.into_iter().filter(|o| !o.is_empty()) {
        // The operator's agents the file names, and its major ones: an
        // obscure token nobody writes rules for is not a conflict.
        let agents: Vec<&Agent> = registry
            .by_operator(operator)
            .filter(|a| named.iter().any(|n| n.token == a.token) || is_notable(a.token))
            .collect();
        for retrieval in agents.iter().filter(|a| is_retrieval(a)) {
            let retrieval_access = access(robots, retrieval, paths);
            for training in agents.iter().filter(|a| is_training(a)) {
                let training_access = access(robots, training, paths);
                for (i, path) in paths.iter().enumerate() {
                    if training_access[i] && !retrieval_access[i] {
                        conflicts.push(json!({
                            "operator": operator, "retrieval": retrieval.token, "training": training.token, "path": path,
                        }));
                        findings.push(
                            Finding::new(
                                Severity::Fail,
                                format!(
                                    "{} ({}) may not fetch {path}, but {operator}'s training agent {} may: retrieval is blocked while training is allowed",
                                    retrieval.token,
                                    retrieval.category.as_str(),
                                    training.token
                                ),
                            )
                            .fix(format!("Allow {} on {path}, or disallow {} there too; if one must be blocked, block the trainer.", retrieval.token, training.token))
                            .at("/robots.txt"),
                        );
                    }
                }
            }
        }
    }
    let status = if conflicts.is_empty() { Status::Pass } else { Status::Fail };
    StepResult::new("no-accidental-blocks", "No retrieval agent blocked where its trainer is allowed", 0.35, status)
        .evidence(json!({ "conflicts": conflicts }))
}

fn up_to_date_step(robots: &Robots, named: &[&'static Agent], findings: &mut Vec<Finding>) -> StepResult {
    let registry = registry();
    let mut legacy: Vec<Value> = Vec::new();
    let mut misspelled: Vec<Value> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for group in robots.groups() {
        for ua in group.user_agents().filter(|a| !a.global && !a.token.is_empty()) {
            match registry.get(ua.token) {
                Some(agent) => {
                    if let Some(successor) = agent.successor
                        && !named.iter().any(|a| a.token.eq_ignore_ascii_case(successor))
                    {
                        legacy.push(json!({"token": ua.token, "successor": successor, "line": ua.line}));
                        findings.push(
                            Finding::new(
                                Severity::Warn,
                                format!("`{}` is a legacy token; its successor {successor} is not named", ua.token),
                            )
                            .fix(format!(
                                "Add `User-agent: {successor}` to the same group; {} replaced the old name.",
                                agent.operator
                            ))
                            .at(format!("/robots.txt:{}", ua.line)),
                        );
                    }
                }
                None => match registry.suggest(ua.token) {
                    Some(known) => {
                        misspelled.push(json!({"token": ua.token, "suggestion": known.token, "line": ua.line}));
                        findings.push(
                            Finding::new(
                                Severity::Warn,
                                format!("`{}` is not a known agent; did you mean {}?", ua.token, known.token),
                            )
                            .fix(format!("Write `User-agent: {}`; a misspelled token matches no crawler.", known.token))
                            .at(format!("/robots.txt:{}", ua.line)),
                        );
                    }
                    None => unknown.push(ua.token.to_string()),
                },
            }
        }
    }
    if !unknown.is_empty() {
        findings.push(Finding::new(
            Severity::Info,
            format!("{} token(s) not in the registry of known agents: {}", unknown.len(), unknown.join(", ")),
        ));
    }
    let status = if legacy.is_empty() && misspelled.is_empty() { Status::Pass } else { Status::Warn };
    StepResult::new("up-to-date", "Agent list is up to date", 0.25, status).evidence(json!({
        "legacy_without_successor": legacy,
        "misspelled": misspelled,
        "unknown": unknown,
    }))
}
