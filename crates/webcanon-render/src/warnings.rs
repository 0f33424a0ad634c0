//! Warnings about a policy, from the known-agents registry.
//!
//! None of these stops a render: the file would still say what the policy
//! says. They catch what the policy's author most likely did not mean.

use std::fmt;

use webcanon_core::agents::{Category, registry};

use crate::policy::{Access, Policy};

/// What a [`Warning`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// A token the registry does not know and cannot match to a known one.
    UnknownToken,
    /// A token that is most likely a misspelling of a known one.
    Misspelling,
    /// A legacy token listed without the token that replaced it.
    LegacyWithoutSuccessor,
    /// An operator's training agent and its retrieval agent (AI search or
    /// user fetch) get the same restricted access: usually a copy-paste, and
    /// blocking retrieval hides the site from the operator's users.
    SameTrainingAndRetrievalAccess,
    /// The entry's `role` is not the registry's category for the token.
    RoleMismatch,
}

/// One warning about a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What kind of problem it is.
    pub kind: WarningKind,
    /// The 1-based line of the entry it is about.
    pub line: u32,
    /// The token it is about.
    pub token: String,
    /// What looks wrong and what to do.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The registry-aware warnings for `policy`, in policy order.
pub fn check(policy: &Policy) -> Vec<Warning> {
    let reg = registry();
    let listed = |token: &str| policy.agents.iter().any(|a| a.tokens.iter().any(|t| t.eq_ignore_ascii_case(token)));
    let mut out = Vec::new();
    for entry in &policy.agents {
        for token in &entry.tokens {
            let mut warn = |kind, message: String| {
                out.push(Warning { kind, line: entry.line, token: token.clone(), message });
            };
            let Some(agent) = reg.get(token) else {
                match reg.suggest(token) {
                    Some(known) => warn(
                        WarningKind::Misspelling,
                        format!("unknown agent token `{token}`; did you mean `{}` ({})?", known.token, known.operator),
                    ),
                    None => warn(
                        WarningKind::UnknownToken,
                        format!(
                            "unknown agent token `{token}`: not in the known-agents registry; check it against the operator's documentation"
                        ),
                    ),
                }
                continue;
            };
            if let Some(successor) = agent.successor
                && !listed(successor)
            {
                warn(
                    WarningKind::LegacyWithoutSuccessor,
                    format!(
                        "`{token}` is a legacy token; {} now uses `{successor}`, which this policy does not list (it gets the `*` record)",
                        agent.operator
                    ),
                );
            }
            if let Some(role) = entry.role
                && role != agent.category
            {
                warn(
                    WarningKind::RoleMismatch,
                    format!("role `{role}` disagrees with the registry: `{}` is {}", agent.token, agent.category),
                );
            }
        }
    }
    same_access_warnings(policy, &mut out);
    out
}

fn is_retrieval(category: Category) -> bool {
    matches!(category, Category::AiSearch | Category::AiUserFetch)
}

/// Training and retrieval agents of one operator with the same access, when
/// that access restricts anything (allowing both everything is the open-site
/// shape, not a mistake).
fn same_access_warnings(policy: &Policy, out: &mut Vec<Warning>) {
    let reg = registry();
    let listed: Vec<(&str, u32, &Access, &webcanon_core::agents::Agent)> = policy
        .agents
        .iter()
        .flat_map(|e| e.tokens.iter().filter_map(move |t| reg.get(t).map(|a| (t.as_str(), e.line, &e.access, a))))
        .collect();
    for &(trainer, _, access, agent) in listed.iter().filter(|l| l.3.category == Category::AiTraining) {
        if *access == Access::AllowAll || agent.operator.is_empty() {
            continue;
        }
        for &(retriever, line, other, _) in
            listed.iter().filter(|l| is_retrieval(l.3.category) && l.3.operator.eq_ignore_ascii_case(agent.operator))
        {
            if other == access {
                out.push(Warning {
                    kind: WarningKind::SameTrainingAndRetrievalAccess,
                    line,
                    token: retriever.to_owned(),
                    message: format!(
                        "`{retriever}` ({} retrieval) gets the same access as the training crawler `{trainer}` ({}); blocking retrieval hides the site from {} users — give them different access if that was not the intent",
                        agent.operator,
                        access.describe(),
                        agent.operator
                    ),
                });
            }
        }
    }
}
