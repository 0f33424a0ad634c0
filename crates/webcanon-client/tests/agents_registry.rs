//! The known-agents registry (`webcanon agents`, lint, render, the audit's
//! access matrix) holds only rows a face can use: issue 16 found 46 of 192
//! entries without an operator, operators cut mid-word ("Cohere to
//! downlo"), "Description unavailable…" placeholders and tokens with
//! spaces or versions ("Brightbot 1.0", "MistralAI-User/1.0"). Every row
//! must have a product token valid by the one rule every face uses
//! (`ProductToken`), its operator's name, a category and a source.

use std::collections::HashMap;

use webcanon_client::agent::ProductToken;
use webcanon_core::agents::{Agent, registry};

/// What is wrong with a row, if anything.
fn faults(agent: &Agent) -> Vec<String> {
    let mut faults = Vec::new();
    if let Err(err) = ProductToken::new(agent.token) {
        faults.push(err.to_string());
    }
    let operator = agent.operator;
    if operator.trim().is_empty() {
        faults.push("no operator".into());
    }
    // An operator is a name, not a URL or the start of a sentence.
    let sentence = [" that ", " to ", ", a ", ", used ", "…", "http", "Unclear"];
    if operator.len() > 48 || sentence.iter().any(|s| operator.contains(s)) {
        faults.push(format!("operator `{operator}` is not a name"));
    }
    let description = agent.description.to_ascii_lowercase();
    if description.contains("description unavailable") || description.starts_with("unclear") {
        faults.push("placeholder description".into());
    }
    if agent.source.trim().is_empty() {
        faults.push("no source".into());
    }
    faults
}

#[test]
fn every_registry_row_is_usable() {
    let bad: Vec<String> = registry()
        .all()
        .iter()
        .filter_map(|agent| {
            let faults = faults(agent);
            (!faults.is_empty()).then(|| format!("{}: {}", agent.token, faults.join("; ")))
        })
        .collect();
    assert!(bad.is_empty(), "{} bad rows:\n{}", bad.len(), bad.join("\n"));
    assert!(registry().all().len() > 150, "the registry keeps its coverage");
}

#[test]
fn each_token_is_listed_once() {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for agent in registry().all() {
        if let Some(first) = seen.insert(agent.token.to_ascii_lowercase(), agent.token) {
            panic!("{} and {} are the same token", first, agent.token);
        }
    }
}

/// The checks themselves catch what the issue found.
#[test]
fn bad_rows_are_caught() {
    let row = |token, operator, description, source| Agent {
        token,
        product_token: token,
        operator,
        category: webcanon_core::agents::Category::AiTraining,
        successor: None,
        description,
        source,
        key_directory: None,
    };
    let cases = [
        row("Brightbot 1.0", "Bright Data", "", "x"),
        row("MistralAI-User/1.0", "Mistral AI", "", "x"),
        row("AddSearchBot", "", "", "x"),
        row("cohere-training-data-crawler", "Cohere to downlo", "", "x"),
        row("Bravebot", "https://safe.search.brave.com/help/brave-search-crawler", "", "x"),
        row("Spider", "Someone", "Description unavailable from knownagents.com", "x"),
        row("GPTBot", "OpenAI", "", ""),
    ];
    for agent in cases {
        assert!(!faults(&agent).is_empty(), "{agent:?}");
    }
    assert!(faults(&row("GPTBot", "OpenAI", "OpenAI's training crawler.", "docs")).is_empty());
}
