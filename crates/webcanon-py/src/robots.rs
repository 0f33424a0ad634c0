//! `Robots`, `Decision`, `Rule`, `Diagnostic` and `lint`: the RFC 9309
//! parser, matcher and linter of the core.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use webcanon_core::policy::Verdict;
use webcanon_core::robots;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Robots>()?;
    m.add_class::<Decision>()?;
    m.add_class::<Rule>()?;
    m.add_class::<Diagnostic>()?;
    m.add_function(wrap_pyfunction!(lint, m)?)?;
    Ok(())
}

/// The bytes of a `str` or `bytes` argument.
pub(crate) fn body_bytes<'a>(body: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if let Ok(bytes) = body.cast::<PyBytes>() {
        Ok(std::borrow::Cow::Owned(bytes.as_bytes().to_vec()))
    } else if let Ok(text) = body.cast::<PyString>() {
        Ok(std::borrow::Cow::Owned(text.to_cow()?.as_bytes().to_vec()))
    } else {
        Err(PyTypeError::new_err(format!("a robots.txt body is str or bytes, not {}", body.get_type().name()?)))
    }
}

/// A parsed robots.txt (RFC 9309). Parsing never fails: lines that are not
/// rules are kept as diagnostics (see `lint`).
#[pyclass(frozen, module = "webcanon")]
pub struct Robots {
    robots: robots::Robots,
}

#[pymethods]
impl Robots {
    /// Parses a robots.txt body (`str` or `bytes`; bytes are read as UTF-8
    /// with invalid sequences kept as they are, as crawlers do).
    #[new]
    fn new(body: &Bound<'_, PyAny>) -> PyResult<Robots> {
        let bytes = body_bytes(body)?;
        Ok(Robots { robots: robots::Robots::parse(&bytes) })
    }

    /// The verdict for `url` (absolute, or a path such as `/a?b`) and the
    /// product token `agent`, with the rule that decided it.
    fn decide(&self, agent: &str, url: &str) -> Decision {
        Decision::from_core(self.robots.decide(agent, url))
    }

    /// Whether `agent` may fetch `url`: `decide(agent, url).allowed`.
    fn is_allowed(&self, agent: &str, url: &str) -> bool {
        self.robots.decide(agent, url).is_allowed()
    }

    /// The `Crawl-delay` of the group that applies to `agent`, in seconds.
    fn crawl_delay(&self, agent: &str) -> Option<f64> {
        self.robots.crawl_delay(agent)
    }

    /// The `Sitemap:` URLs, in file order.
    #[getter]
    fn sitemaps(&self) -> Vec<String> {
        self.robots.sitemaps().map(str::to_string).collect()
    }

    /// The product tokens named by `User-agent` lines (`*` included), in
    /// file order, each once.
    #[getter]
    fn agents(&self) -> Vec<String> {
        let mut tokens: Vec<String> = Vec::new();
        for group in self.robots.groups() {
            for agent in group.user_agents() {
                let token = if agent.global { "*" } else { agent.token };
                if !token.is_empty() && !tokens.iter().any(|t| t.eq_ignore_ascii_case(token)) {
                    tokens.push(token.to_string());
                }
            }
        }
        tokens
    }

    /// Whether `agent` has a group of its own (not only the `*` group).
    fn has_group_for(&self, agent: &str) -> bool {
        self.robots.has_group_for(agent)
    }

    /// False when the body is not a robots.txt at all (an HTML page, binary
    /// data): crawlers then treat the file as unreadable.
    #[getter]
    fn is_robots(&self) -> bool {
        self.robots.not_robots().is_none()
    }

    /// Whether the body was longer than the parse limit (500 KiB) and cut there.
    #[getter]
    fn truncated(&self) -> bool {
        self.robots.is_truncated()
    }

    /// The body's size in bytes.
    #[getter]
    fn size(&self) -> usize {
        self.robots.size()
    }

    /// The lint findings: parse problems and rules crawlers read differently.
    fn lint(&self) -> Vec<Diagnostic> {
        self.robots.lint().into_iter().map(Diagnostic::from_core).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Robots {} bytes, {} groups, {} sitemaps>",
            self.robots.size(),
            self.robots.groups().len(),
            self.robots.sitemaps().count()
        )
    }
}

/// The lint findings of a robots.txt body (`str` or `bytes`).
#[pyfunction]
fn lint(body: &Bound<'_, PyAny>) -> PyResult<Vec<Diagnostic>> {
    let bytes = body_bytes(body)?;
    Ok(robots::Robots::parse(&bytes).lint().into_iter().map(Diagnostic::from_core).collect())
}

/// The answer for one URL and agent.
#[pyclass(frozen, module = "webcanon", eq, skip_from_py_object)]
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// `allowed_explicit`, `allowed_implicit` or `disallowed_explicit`.
    #[pyo3(get)]
    verdict: &'static str,
    /// Whether the URL may be fetched.
    #[pyo3(get)]
    allowed: bool,
    /// `recommended` or `not_recommended`.
    #[pyo3(get)]
    recommendation: &'static str,
    /// The rule that decided; `None` when no rule matched.
    #[pyo3(get)]
    rule: Option<Rule>,
}

impl Decision {
    fn from_core(decision: robots::Decision<'_>) -> Decision {
        let verdict = Verdict::from(decision.verdict);
        Decision {
            verdict: verdict.as_str(),
            allowed: decision.is_allowed(),
            recommendation: verdict.recommendation().as_str(),
            rule: decision.rule.map(|r| Rule {
                line: r.line,
                directive: r.directive.as_str(),
                pattern: r.pattern.to_string(),
            }),
        }
    }
}

#[pymethods]
impl Decision {
    fn __bool__(&self) -> bool {
        self.allowed
    }

    fn __repr__(&self) -> String {
        match &self.rule {
            Some(rule) => format!("<Decision {} by {}>", self.verdict, rule.__repr__()),
            None => format!("<Decision {}>", self.verdict),
        }
    }
}

/// A rule as written in robots.txt: the evidence behind a verdict.
#[pyclass(frozen, module = "webcanon", eq, skip_from_py_object)]
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The 1-based line number.
    #[pyo3(get)]
    line: u32,
    /// `allow` or `disallow`.
    #[pyo3(get)]
    directive: &'static str,
    /// The pattern as written.
    #[pyo3(get)]
    pattern: String,
}

#[pymethods]
impl Rule {
    fn __repr__(&self) -> String {
        let name = if self.directive == "allow" { "Allow" } else { "Disallow" };
        format!("<Rule line {}: {name}: {}>", self.line, self.pattern)
    }
}

/// A lint finding with its stable code.
#[pyclass(frozen, module = "webcanon", eq, skip_from_py_object)]
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// The stable code (`R001`…).
    #[pyo3(get)]
    code: &'static str,
    /// The code's kebab-case name.
    #[pyo3(get)]
    name: &'static str,
    /// `info`, `warning` or `error`.
    #[pyo3(get)]
    severity: &'static str,
    /// The 1-based line; `None` for the whole file.
    #[pyo3(get)]
    line: Option<u32>,
    /// What is wrong.
    #[pyo3(get)]
    message: String,
}

impl Diagnostic {
    fn from_core(d: robots::Diagnostic) -> Diagnostic {
        Diagnostic {
            code: d.code.code(),
            name: d.code.name(),
            severity: d.severity.as_str(),
            line: d.line,
            message: d.message,
        }
    }
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        match self.line {
            Some(line) => format!("<Diagnostic {} {} line {line}: {}>", self.code, self.severity, self.message),
            None => format!("<Diagnostic {} {}: {}>", self.code, self.severity, self.message),
        }
    }
}
