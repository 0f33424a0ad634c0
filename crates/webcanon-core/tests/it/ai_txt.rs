//! The ai.txt parser against the files of `shared/corpus/signals`.

use std::fs;

use webcanon_core::ai_txt::{AiTxt, AiTxtCode, AiTxtKind, TrainingVerdict};

const SIGNALS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/signals");

fn corpus(name: &str) -> AiTxt {
    AiTxt::parse(fs::read(format!("{SIGNALS}/{name}")).expect("corpus file"))
}

#[test]
fn spawning_generator_output() {
    let file = corpus("healsdata__ai.txt");
    assert_eq!(file.kind, AiTxtKind::Spawning);
    assert_eq!(file.groups.len(), 1);
    assert_eq!(file.groups[0].agents, ["*"]);
    assert_eq!(file.diagnostics, []);
    let jpg = file.decide("GPTBot", "https://example.com/photos/cat.JPG?size=2");
    assert_eq!(jpg.verdict, TrainingVerdict::Disallowed);
    assert_eq!(jpg.rule.map(|r| r.pattern.as_str()), Some("*.jpg"));
    assert_eq!(file.decide_extension("CCBot", "png").verdict, TrainingVerdict::Disallowed);
    // `Disallow: /` in the file opts out of everything else.
    assert_eq!(file.decide("CCBot", "/data.parquet").rule.map(|r| r.line), Some(59));
    assert_eq!(file.decide("CCBot", "/page.html").verdict, TrainingVerdict::Disallowed);
}

#[test]
fn other_ai_txt_is_classified_not_obeyed() {
    let file = corpus("andrewtrodriguez__ai.txt");
    assert_eq!(file.kind, AiTxtKind::Other);
    assert!(file.groups.is_empty());
    let training = file.records.iter().find(|r| r.key == "Training").expect("Training record");
    assert_eq!((training.line, training.value.as_str()), (7, "yes"));
    assert!(file.diagnostics.iter().any(|d| d.code == AiTxtCode::NotSpawning && d.line.is_none()));
    assert_eq!(file.decide("GPTBot", "/a.jpg").verdict, TrainingVerdict::NoRule);
}

#[test]
fn html_and_empty() {
    let html = AiTxt::parse("<!doctype html><html><body>404</body></html>");
    assert_eq!(html.kind, AiTxtKind::Html);
    assert_eq!(html.diagnostics[0].code, AiTxtCode::HtmlBody);
    let empty = AiTxt::parse("# nothing here\n\n");
    assert_eq!(empty.kind, AiTxtKind::Empty);
}

#[test]
fn groups_and_precedence() {
    let file = AiTxt::parse(
        "Disallow: /early\nUser-Agent: *\nDisallow: /\nAllow: /docs/\n\nUser-Agent: FriendlyBot\nAllow: *.png\nDisallow: /private/\n",
    );
    assert_eq!(file.kind, AiTxtKind::Spawning);
    assert_eq!(file.diagnostics[0].code, AiTxtCode::OrphanRule);
    assert_eq!(file.diagnostics[0].line, Some(1));
    assert_eq!(file.decide("OtherBot", "/blog/x.png").verdict, TrainingVerdict::Disallowed);
    let docs = file.decide("OtherBot", "/docs/a.md");
    assert_eq!((docs.verdict, docs.rule.map(|r| r.line)), (TrainingVerdict::Allowed, Some(4)));
    assert_eq!(file.decide("FriendlyBot/1.0", "/blog/x.png").verdict, TrainingVerdict::Allowed);
    assert_eq!(file.decide("friendlybot", "/private/x.png").verdict, TrainingVerdict::Disallowed);
    assert_eq!(file.decide("FriendlyBot", "/blog/x.jpg").verdict, TrainingVerdict::NoRule);
}
