//! `ai-txt` 1.0.0: the site says in `/ai.txt` what may be used for AI
//! training ([Spawning's format](https://site.spawning.ai/spawning-ai-txt)).
//!
//! Steps:
//! - `present` (0.5) — `/ai.txt` answers 2xx with text. The file is
//!   optional, so a missing one (or an HTML page answering for it, or a
//!   refusal, or an error) warns with a fix rather than failing: shipping it
//!   is recommended, since rights reservations in machine-readable form are
//!   what the EU AI Act (and the DSM Directive's Article 4) asks agents to
//!   honour.
//! - `valid` (0.5) — the body is Spawning's format (`User-Agent` groups with
//!   `Allow`/`Disallow` rules over paths and file-type globs): an error
//!   (a rule before any `User-Agent`) fails, a warning (a line that is not
//!   a record) warns. A file of another, unrelated format is classified,
//!   not failed: it warns, since Spawning readers find no rule in it; an
//!   empty file warns too. What the rules say about training for every
//!   agent (`*`) is evidence, per file type and per kind of media.
//!
//! Like every usage signal, ai.txt states a preference about training on
//! content; it never blocks fetching.
//!
//! Evidence keys: `present` {url, final_url, status, media_type, redirects,
//! bytes, error, kind}; `valid` {kind, groups: [{agents, rules: [{line,
//! directive, pattern}]}], records, diagnostics: [{code, line, severity,
//! message}], training: {by_type: {ext: verdict}, by_media: {images, text,
//! audio, video: allowed | disallowed | no_rule | mixed}}}.

use serde::Serialize;
use serde_json::{Map, Value, json};
use webcanon_core::ai_txt::{AiTxt, AiTxtCode, AiTxtKind, TrainingVerdict};

use super::Context;
use super::llms_txt::unavailable;
use crate::report::{CheckResult, Finding, Severity, Status, StepResult};
use crate::site::{ReadEvidence, Resource};

/// The check id.
pub const ID: &str = "ai-txt";
/// The check version.
pub const VERSION: &str = "1.0.0";
const TITLE: &str = "ai.txt states a training preference";

const PATH: &str = "/ai.txt";
const PRESENT_TITLE: &str = "ai.txt is published";
const VALID_TITLE: &str = "ai.txt is in Spawning's format";
/// Records of another format kept in the evidence.
const EVIDENCE_RECORDS: usize = 50;

/// File types evaluated for the evidence, by kind of media.
const MEDIA: &[(&str, &[&str])] = &[
    ("images", &["jpg", "jpeg", "png", "gif", "webp", "svg"]),
    ("text", &["html", "md", "txt", "pdf"]),
    ("audio", &["mp3", "wav", "flac"]),
    ("video", &["mp4", "webm", "mov"]),
];

const PUBLISH_FIX: &str = "Publish /ai.txt in Spawning's format to say what may be used for AI training, e.g. \
     `User-Agent: *` then `Disallow: *.jpg` and `Allow: /docs/`. It is optional, but it is a machine-readable \
     rights reservation, which the EU AI Act asks model makers to honour.";

/// Runs the check.
pub async fn run(ctx: &Context) -> CheckResult {
    let resource = ctx.site.get(PATH).await;
    let mut findings = Vec::new();
    let file = resource.is_success().then(|| AiTxt::parse(&resource.body));
    let present = present_step(ctx, &resource, file.as_ref(), &mut findings);
    let valid = match file.filter(|f| f.kind != AiTxtKind::Html) {
        Some(file) => valid_step(&file, &resource, &mut findings),
        None => StepResult::new("valid", VALID_TITLE, 0.5, Status::Skip),
    };
    CheckResult::from_steps(ID, VERSION, TITLE, vec![present, valid], findings)
}

fn kind_name(kind: AiTxtKind) -> &'static str {
    match kind {
        AiTxtKind::Spawning => "spawning",
        AiTxtKind::Html => "html",
        AiTxtKind::Empty => "empty",
        _ => "other",
    }
}

/// The evidence of the `present` step: the read, and which kind of file.
#[derive(Serialize)]
struct PresentEvidence<'a> {
    #[serde(flatten)]
    read: ReadEvidence<'a>,
    kind: Option<&'static str>,
}

fn present_step(ctx: &Context, resource: &Resource, file: Option<&AiTxt>, findings: &mut Vec<Finding>) -> StepResult {
    let evidence = PresentEvidence { read: resource.evidence(), kind: file.map(|f| kind_name(f.kind)) };
    let status = match file {
        None => {
            let finding = unavailable(ctx, resource, PATH, Severity::Warn);
            let missing = resource.error.is_none() && resource.status.is_some_and(|s| (400..500).contains(&s));
            findings.push(if missing { finding.fix(PUBLISH_FIX) } else { finding });
            Status::Warn
        }
        Some(file) if file.kind == AiTxtKind::Html => {
            findings.push(
                Finding::new(
                    Severity::Warn,
                    "/ai.txt answers with an HTML page (a catch-all route), so the site has no ai.txt",
                )
                .fix(format!("{PUBLISH_FIX} Until then, make /ai.txt answer 404."))
                .at(resource.url.clone()),
            );
            Status::Warn
        }
        Some(_) => Status::Pass,
    };
    StepResult::new("present", PRESENT_TITLE, 0.5, status).evidence(evidence)
}

fn valid_step(file: &AiTxt, resource: &Resource, findings: &mut Vec<Finding>) -> StepResult {
    let mut status = Status::Pass;
    // In a file of another format every record is an unknown key: the
    // classification says it once.
    let reported =
        file.diagnostics.iter().filter(|d| file.kind == AiTxtKind::Spawning || d.code != AiTxtCode::UnknownKey);
    for d in reported {
        let severity = Severity::from(d.severity);
        status = status.max(severity.step_status());
        let location = d.line.map_or_else(|| resource.url.clone(), |l| format!("{}:{l}", resource.url));
        findings.push(
            Finding::new(severity, format!("{} {}", d.code.code(), d.message)).fix(ai_txt_fix(d.code)).at(location),
        );
    }
    let evidence = json!({
        "kind": kind_name(file.kind),
        "groups": file.groups,
        "records": file.records.iter().take(EVIDENCE_RECORDS).collect::<Vec<_>>(),
        "diagnostics": file.diagnostics.iter().map(|d| json!({
            "code": d.code.code(), "line": d.line, "severity": d.severity.as_str(), "message": d.message,
        })).collect::<Vec<_>>(),
        "training": training(file),
    });
    StepResult::new("valid", VALID_TITLE, 0.5, status).evidence(evidence)
}

fn verdict_name(verdict: TrainingVerdict) -> &'static str {
    match verdict {
        TrainingVerdict::Allowed => "allowed",
        TrainingVerdict::Disallowed => "disallowed",
        TrainingVerdict::NoRule => "no_rule",
    }
}

/// What the rules say about training for every agent, per file type and
/// per kind of media (`mixed` when the types of a kind differ).
fn training(file: &AiTxt) -> Value {
    let mut by_type = Map::new();
    let mut by_media = Map::new();
    for (media, extensions) in MEDIA {
        let verdicts: Vec<&str> =
            extensions.iter().map(|ext| verdict_name(file.decide_extension("*", ext).verdict)).collect();
        for (ext, verdict) in extensions.iter().zip(&verdicts) {
            by_type.insert(ext.to_string(), json!(verdict));
        }
        let summary = if verdicts.iter().all(|v| *v == verdicts[0]) { verdicts[0] } else { "mixed" };
        by_media.insert(media.to_string(), json!(summary));
    }
    json!({"by_type": by_type, "by_media": by_media})
}

fn ai_txt_fix(code: AiTxtCode) -> &'static str {
    match code {
        AiTxtCode::OrphanRule => {
            "Put a `User-Agent: *` line (or a named agent) before the rule: a rule outside a group applies to no one."
        }
        AiTxtCode::InvalidLine => {
            "Write every line as `key: value` (`User-Agent: *`, `Disallow: *.jpg`) or make it a `#` comment."
        }
        AiTxtCode::UnknownKey => {
            "Remove the record or make it a `#` comment: Spawning's format reads only User-Agent, Allow and Disallow."
        }
        AiTxtCode::NotSpawning => {
            "If the file is meant to opt out of AI training, write it in Spawning's format (`User-Agent: *`, then \
             `Disallow:` rules over paths or file types such as `*.jpg`): that is the form dataset tools read."
        }
        AiTxtCode::Empty => PUBLISH_FIX,
        _ => "Serve a plain-text ai.txt in Spawning's format at /ai.txt.",
    }
}
