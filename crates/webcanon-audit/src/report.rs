//! The audit's result: checks made of weighted steps, each with a status,
//! a score and evidence, and findings that say what to change.
//!
//! # JSON schema (stable)
//!
//! ```text
//! {
//!   "target": "https://example.com" | "path/to/public",
//!   "target_kind": "origin" | "folder",
//!   "agent": "webcanon",            // the product token robots.txt was read for
//!   "score": 0..100,                // weighted mean of the scored checks
//!   "status": "pass" | "warn" | "fail",
//!   "checks": [{
//!     "id": "robots-txt", "version": "1.0.0", "title": "...", "weight": 1.0,
//!     "status": "pass" | "warn" | "fail" | "skip",
//!     "score": 0..100 | null,       // null when skipped
//!     "steps": [{"id", "title", "weight", "status", "evidence": {...}}],
//!     "findings": [{"severity": "fail" | "warn" | "info", "message", "fix": str | null, "location": str | null}]
//!   }],
//!   "access_matrix": {"paths": [...], "agents": [{"token", "operator", "category", "access": [bool...]}]} | null,
//!   "resources_read": n
//! }
//! ```
//!
//! Scoring, one rule for every report (terminal, JSON, HTML, MCP):
//!
//! - a step that passes scores 1, a warning 0.5, a failure 0; a skipped
//!   step (not applicable, or not reachable after an earlier failure) does
//!   not count: a check's score is the weighted mean of its other steps
//!   (x100), so a check whose steps all pass scores 100 whatever was skipped;
//! - a check's status is its worst step status, so the status bounds the
//!   score: `pass` is 100, `warn` 50 to 99, `fail` 0 to 99 (one failing
//!   step of small weight fails the check, its score says how much else
//!   held);
//! - the site's score is the mean of the scored checks' scores weighted by
//!   the check weights (skipped checks do not count); its status is the
//!   worst check status, and [`Report::status_reason`] names the checks
//!   that set it;
//! - colour follows the status, never the score: green pass, amber warn,
//!   red fail, grey skip.

use serde::Serialize;
use serde_json::Value;

/// The status of a step, a check or a whole audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Everything as it should be.
    Pass,
    /// Works, but something should change.
    Warn,
    /// Broken or missing.
    Fail,
    /// Not applicable, or not reachable because an earlier step failed.
    Skip,
}

impl Status {
    /// `pass`, `warn`, `fail`, `skip`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }

    /// The step score this status earns; `None` for a skipped step, which
    /// does not count.
    pub fn points(self) -> Option<f64> {
        match self {
            Status::Pass => Some(1.0),
            Status::Warn => Some(0.5),
            Status::Fail => Some(0.0),
            Status::Skip => None,
        }
    }
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Must be fixed.
    Fail,
    /// Should be fixed.
    Warn,
    /// Worth knowing.
    Info,
}

impl Severity {
    /// `fail`, `warn`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Fail => "fail",
            Severity::Warn => "warn",
            Severity::Info => "info",
        }
    }
}

/// A diagnostic code's severity, as the core's code tables give it
/// (`R…`, `L…`, `S…`, ai.txt): an error fails, a warning warns, an info
/// note is worth knowing. Every check maps a code's severity here, so a
/// code reads the same in `robots lint`, `llms check` and the audit.
impl From<webcanon_core::robots::Severity> for Severity {
    fn from(severity: webcanon_core::robots::Severity) -> Severity {
        match severity {
            webcanon_core::robots::Severity::Error => Severity::Fail,
            webcanon_core::robots::Severity::Warning => Severity::Warn,
            webcanon_core::robots::Severity::Info => Severity::Info,
        }
    }
}

impl Severity {
    /// The status a step gets from a finding of this severity: an info
    /// finding leaves the step passing.
    pub fn step_status(self) -> Status {
        match self {
            Severity::Fail => Status::Fail,
            Severity::Warn => Status::Warn,
            Severity::Info => Status::Pass,
        }
    }
}

/// Something the audit found, with what to change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Finding {
    /// How serious it is.
    pub severity: Severity,
    /// What was found.
    pub message: String,
    /// What to change.
    pub fix: Option<String>,
    /// Where (`/robots.txt:12`, a URL).
    pub location: Option<String>,
}

impl Finding {
    /// A finding without a fix or location.
    pub fn new(severity: Severity, message: impl Into<String>) -> Finding {
        Finding { severity, message: message.into(), fix: None, location: None }
    }

    /// Adds what to change.
    pub fn fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = Some(fix.into());
        self
    }

    /// Adds where.
    pub fn at(mut self, location: impl Into<String>) -> Finding {
        self.location = Some(location.into());
        self
    }
}

/// One weighted step of a check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StepResult {
    /// The step id (`fetch`, `core-syntax`).
    pub id: &'static str,
    /// What the step checks.
    pub title: &'static str,
    /// Its share of the check's score; a check's weights sum to 1.
    pub weight: f64,
    /// How it went.
    pub status: Status,
    /// What was seen, as a JSON object whose keys each check documents.
    pub evidence: Value,
}

impl StepResult {
    /// A step with empty evidence.
    pub fn new(id: &'static str, title: &'static str, weight: f64, status: Status) -> StepResult {
        StepResult { id, title, weight, status, evidence: Value::Object(Default::default()) }
    }

    /// Sets the evidence: a JSON object whose keys the check documents,
    /// from a typed value (or a `json!` object).
    pub fn evidence(mut self, evidence: impl Serialize) -> StepResult {
        self.evidence = serde_json::to_value(evidence)
            .unwrap_or_else(|err| serde_json::json!({"unserialisable_evidence": err.to_string()}));
        self
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CheckResult {
    /// The stable id (`robots-txt`).
    pub id: &'static str,
    /// The check's version; a change in what it checks bumps it.
    pub version: &'static str,
    /// A short title.
    pub title: &'static str,
    /// The check's weight in the site's score.
    pub weight: f64,
    /// The worst status among the steps (`skip` when all were skipped).
    pub status: Status,
    /// 0 to 100; `None` when the check was skipped.
    #[cfg_attr(feature = "openapi", schema(maximum = 100))]
    pub score: Option<u8>,
    /// The steps, in order.
    pub steps: Vec<StepResult>,
    /// Findings, most serious first.
    pub findings: Vec<Finding>,
}

impl CheckResult {
    /// Builds the result from its steps: the status is the worst step
    /// status (ignoring skipped steps unless all are), the score the
    /// weighted mean of the points of the steps that were not skipped.
    pub fn from_steps(
        id: &'static str,
        version: &'static str,
        title: &'static str,
        steps: Vec<StepResult>,
        mut findings: Vec<Finding>,
    ) -> CheckResult {
        let scored: Vec<&StepResult> = steps.iter().filter(|s| s.status != Status::Skip).collect();
        let status = scored.iter().map(|s| s.status).max().unwrap_or(Status::Skip);
        let weight: f64 = scored.iter().map(|s| s.weight).sum();
        let score = (status != Status::Skip && weight > 0.0).then(|| {
            let points: f64 = scored.iter().filter_map(|s| s.status.points().map(|p| p * s.weight)).sum();
            let score = (points / weight * 100.0).round().clamp(0.0, 100.0) as u8;
            // Rounding never lifts a check with a warning or a failure to 100.
            if status == Status::Pass { score } else { score.min(99) }
        });
        let status = if score.is_none() { Status::Skip } else { status };
        findings.sort_by_key(|f| f.severity);
        CheckResult { id, version, title, weight: 1.0, status, score, steps, findings }
    }

    /// A check that does not apply to this target (e.g. apex/www for a folder).
    pub fn skipped(id: &'static str, version: &'static str, title: &'static str, why: &str) -> CheckResult {
        CheckResult {
            id,
            version,
            title,
            weight: 1.0,
            status: Status::Skip,
            score: None,
            steps: Vec::new(),
            findings: vec![Finding::new(Severity::Info, why)],
        }
    }
}

/// Who may read the site's main paths: known agents by category against
/// paths, as robots.txt says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AccessMatrix {
    /// The paths (columns).
    pub paths: Vec<String>,
    /// One row per agent.
    pub agents: Vec<AgentAccess>,
}

/// One row of the access matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentAccess {
    /// The product token.
    pub token: String,
    /// Who runs it.
    pub operator: String,
    /// Its category (`ai-training`).
    pub category: String,
    /// Whether it may fetch each path, in the order of [`AccessMatrix::paths`].
    pub access: Vec<bool>,
    /// Whether a group names the agent (otherwise the `*` group applies).
    pub named: bool,
    /// The Web Bot Auth key directory its operator publishes, from the
    /// registry: requests signed with those keys can be verified
    /// (`webcanon verify-request`); `null` when no public source names one.
    pub key_directory: Option<String>,
}

/// A whole audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Report {
    /// The origin or folder audited.
    pub target: String,
    /// `origin` or `folder`.
    pub target_kind: &'static str,
    /// The product token robots.txt was read for.
    pub agent: String,
    /// 0 to 100.
    #[cfg_attr(feature = "openapi", schema(maximum = 100))]
    pub score: u8,
    /// `fail` if any check failed, else `warn` if any warned, else `pass`.
    pub status: Status,
    /// The checks, in a fixed order.
    pub checks: Vec<CheckResult>,
    /// Known agents against the main paths, when robots.txt was read.
    pub access_matrix: Option<AccessMatrix>,
    /// Resources read (each once).
    pub resources_read: usize,
}

impl Report {
    /// Assembles the report and computes the site score and status.
    pub fn new(
        target: String,
        target_kind: &'static str,
        agent: String,
        checks: Vec<CheckResult>,
        access_matrix: Option<AccessMatrix>,
        resources_read: usize,
    ) -> Report {
        let scored: Vec<&CheckResult> = checks.iter().filter(|c| c.score.is_some()).collect();
        let weight: f64 = scored.iter().map(|c| c.weight).sum();
        let score = if weight > 0.0 {
            let total: f64 = scored.iter().map(|c| c.weight * f64::from(c.score.unwrap_or(0))).sum();
            (total / weight).round().clamp(0.0, 100.0) as u8
        } else {
            0
        };
        let status = scored.iter().map(|c| c.status).max().unwrap_or(Status::Skip);
        Report { target, target_kind, agent, score, status, checks, access_matrix, resources_read }
    }

    /// The check with this id.
    pub fn check(&self, id: &str) -> Option<&CheckResult> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// Why the site has its status, in a phrase: the checks that failed
    /// (for `fail`) or warned (for `warn`), e.g. `2 checks failed:
    /// apex-www, sitemap`; `every check passed` for `pass`.
    pub fn status_reason(&self) -> String {
        let with = |status: Status| -> Vec<&str> {
            self.checks.iter().filter(|c| c.status == status && c.score.is_some()).map(|c| c.id).collect()
        };
        let list = |ids: Vec<&str>, verb: &str| {
            let noun = if ids.len() == 1 { "check" } else { "checks" };
            format!("{} {noun} {verb}: {}", ids.len(), ids.join(", "))
        };
        match self.status {
            Status::Fail => list(with(Status::Fail), "failed"),
            Status::Warn => list(with(Status::Warn), "warned"),
            Status::Pass => "every check passed".to_string(),
            Status::Skip => "no check applied".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_score_and_status_from_steps() {
        let steps = vec![
            StepResult::new("a", "A", 0.3, Status::Pass),
            StepResult::new("b", "B", 0.45, Status::Warn),
            StepResult::new("c", "C", 0.25, Status::Pass),
        ];
        let check = CheckResult::from_steps("x", "1.0.0", "X", steps, Vec::new());
        assert_eq!(check.status, Status::Warn);
        assert_eq!(check.score, Some(78)); // 0.3 + 0.225 + 0.25
        let failed = CheckResult::from_steps(
            "x",
            "1.0.0",
            "X",
            vec![StepResult::new("a", "A", 0.3, Status::Fail), StepResult::new("b", "B", 0.7, Status::Skip)],
            Vec::new(),
        );
        assert_eq!((failed.status, failed.score), (Status::Fail, Some(0)));
    }

    /// A skipped step does not count: the steps that ran decide the score,
    /// so a check that passes every step it ran scores 100 (an apex-www
    /// check was once shown PASS with score 50).
    #[test]
    fn skipped_steps_do_not_count() {
        let steps = vec![StepResult::new("a", "A", 0.5, Status::Pass), StepResult::new("b", "B", 0.5, Status::Skip)];
        let check = CheckResult::from_steps("x", "1.0.0", "X", steps, Vec::new());
        assert_eq!((check.status, check.score), (Status::Pass, Some(100)));
        let steps = vec![
            StepResult::new("a", "A", 0.25, Status::Fail),
            StepResult::new("b", "B", 0.25, Status::Skip),
            StepResult::new("c", "C", 0.5, Status::Pass),
        ];
        let check = CheckResult::from_steps("x", "1.0.0", "X", steps, Vec::new());
        assert_eq!((check.status, check.score), (Status::Fail, Some(67)));
    }

    #[test]
    fn status_ranges_bound_the_score() {
        use Status::*;
        let all = [Pass, Warn, Fail, Skip];
        for a in all {
            for b in all {
                for c in all {
                    let steps = vec![
                        StepResult::new("a", "A", 0.3, a),
                        StepResult::new("b", "B", 0.45, b),
                        StepResult::new("c", "C", 0.25, c),
                    ];
                    let check = CheckResult::from_steps("x", "1", "X", steps, Vec::new());
                    match (check.status, check.score) {
                        (Pass, Some(100)) | (Skip, None) => {}
                        (Warn, Some(s)) if (50..100).contains(&s) => {}
                        (Fail, Some(s)) if s < 100 => {}
                        other => panic!("{a:?} {b:?} {c:?}: {other:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn the_status_says_why() {
        let pass = CheckResult::from_steps("p", "1", "P", vec![StepResult::new("a", "A", 1.0, Status::Pass)], vec![]);
        let fail = CheckResult::from_steps("f", "1", "F", vec![StepResult::new("a", "A", 1.0, Status::Fail)], vec![]);
        let warn = CheckResult::from_steps("w", "1", "W", vec![StepResult::new("a", "A", 1.0, Status::Warn)], vec![]);
        let report = Report::new("t".into(), "folder", "bot".into(), vec![pass.clone(), fail, warn.clone()], None, 0);
        assert_eq!(report.status_reason(), "1 check failed: f");
        let report = Report::new("t".into(), "folder", "bot".into(), vec![pass.clone(), warn], None, 0);
        assert_eq!(report.status_reason(), "1 check warned: w");
        let report = Report::new("t".into(), "folder", "bot".into(), vec![pass], None, 0);
        assert_eq!(report.status_reason(), "every check passed");
    }

    #[test]
    fn site_score_ignores_skipped_checks() {
        let pass = CheckResult::from_steps("p", "1", "P", vec![StepResult::new("a", "A", 1.0, Status::Pass)], vec![]);
        let warn = CheckResult::from_steps("w", "1", "W", vec![StepResult::new("a", "A", 1.0, Status::Warn)], vec![]);
        let skip = CheckResult::skipped("s", "1", "S", "not here");
        let report = Report::new("t".into(), "folder", "bot".into(), vec![pass, warn, skip], None, 0);
        assert_eq!(report.score, 75);
        assert_eq!(report.status, Status::Warn);
    }
}
