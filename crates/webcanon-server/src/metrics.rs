//! Prometheus metrics (OpenMetrics text) of the service.
//!
//! | name | type | labels |
//! |---|---|---|
//! | `webcanon_http_requests_total` | counter | `route`, `method`, `status` |
//! | `webcanon_http_request_duration_seconds` | histogram | `route` |
//! | `webcanon_http_requests_in_flight` | gauge | |
//! | `webcanon_robots_verdicts_total` | counter | `verdict` |
//! | `webcanon_policy_refusals_total` | counter | |
//! | `webcanon_ssrf_refusals_total` | counter | |
//! | `webcanon_robots_cache_hits_total` | counter | |
//! | `webcanon_robots_cache_misses_total` | counter | |
//! | `webcanon_robots_fetches_total` | counter | |
//! | `webcanon_robots_store_errors_total` | counter | |

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use webcanon_client::Client;
use webcanon_client::error::Error;
use webcanon_core::policy::Verdict;

/// The `Content-Type` of [`Metrics::encode`]'s output.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The route label of requests that matched no route.
const UNMATCHED: &str = "unmatched";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VerdictLabels {
    verdict: &'static str,
}

/// The service's counters, in one registry.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    durations: Family<RouteLabels, Histogram>,
    in_flight: Gauge,
    verdicts: Family<VerdictLabels, Counter>,
    policy_refusals: Counter,
    ssrf_refusals: Counter,
}

impl Metrics {
    /// A registry with every metric, the robots cache counters read from `client`.
    pub fn new(client: &Client) -> Metrics {
        let mut registry = Registry::with_prefix("webcanon");
        let requests = Family::<RequestLabels, Counter>::default();
        let durations = Family::<RouteLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(exponential_buckets(0.0005, 2.0, 16))) as fn() -> Histogram,
        );
        let in_flight = Gauge::default();
        let verdicts = Family::<VerdictLabels, Counter>::default();
        let policy_refusals = Counter::default();
        let ssrf_refusals = Counter::default();
        registry.register("http_requests", "HTTP requests answered, by route, method and status", requests.clone());
        registry.register(
            "http_request_duration_seconds",
            "Time to answer an HTTP request, by route",
            durations.clone(),
        );
        registry.register("http_requests_in_flight", "HTTP requests being answered now", in_flight.clone());
        registry.register("robots_verdicts", "robots.txt verdicts given, by verdict", verdicts.clone());
        registry.register("policy_refusals", "Fetches refused by robots.txt policy", policy_refusals.clone());
        registry.register("ssrf_refusals", "Requests refused by the SSRF guard", ssrf_refusals.clone());
        registry.register_collector(Box::new(CacheCollector { client: client.clone() }));
        Metrics { registry, requests: requests.clone(), durations, in_flight, verdicts, policy_refusals, ssrf_refusals }
    }

    /// Counts a verdict.
    pub fn verdict(&self, verdict: Verdict) {
        self.verdicts.get_or_create(&VerdictLabels { verdict: verdict.as_str() }).inc();
    }

    /// Counts a client error: a policy refusal (and its verdict) or an SSRF refusal.
    pub fn client_error(&self, err: &Error) {
        match err {
            Error::Policy(policy) => {
                self.policy_refusals.inc();
                self.verdict(policy.evidence.verdict);
            }
            Error::Ssrf(_) => {
                self.ssrf_refusals.inc();
            }
            _ => {}
        }
    }

    /// The metrics in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry).expect("writing to a String cannot fail");
        out
    }
}

/// The robots cache counters, read from the client at every scrape.
#[derive(Debug)]
struct CacheCollector {
    client: Client,
}

impl Collector for CacheCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let stats = self.client.cache_stats();
        for (name, help, value) in [
            ("robots_cache_hits", "robots.txt answers served from the cache", stats.hits),
            ("robots_cache_misses", "robots.txt answers that needed a fetch", stats.misses),
            ("robots_fetches", "robots.txt fetches made", stats.fetches),
            ("robots_store_errors", "robots cache store operations that failed", stats.store_errors),
        ] {
            let counter = ConstCounter::new(value);
            let metric = encoder.encode_descriptor(name, help, None, counter.metric_type())?;
            counter.encode(metric)?;
        }
        Ok(())
    }
}

/// Middleware: counts every request by route, method and status, times it,
/// and keeps the in-flight gauge.
pub async fn track(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map_or(UNMATCHED, MatchedPath::as_str).to_string();
    let method = method_label(request.method()).to_string();
    let started = Instant::now();
    let in_flight = InFlight::enter(&metrics.in_flight);
    let response = next.run(request).await;
    drop(in_flight);
    let status = response.status().as_u16();
    metrics.durations.get_or_create(&RouteLabels { route: route.clone() }).observe(started.elapsed().as_secs_f64());
    metrics.requests.get_or_create(&RequestLabels { route: route.clone(), method: method.clone(), status }).inc();
    tracing::debug!(%method, %route, status, ms = started.elapsed().as_millis() as u64, "request");
    response
}

/// The method label: the standard methods by name, anything else `other`
/// (so a client cannot grow the label set).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        Method::TRACE => "TRACE",
        Method::CONNECT => "CONNECT",
        _ => "other",
    }
}

/// One request counted in the in-flight gauge until dropped (also when
/// the client goes away mid-request).
struct InFlight<'a>(&'a Gauge);

impl<'a> InFlight<'a> {
    fn enter(gauge: &'a Gauge) -> InFlight<'a> {
        gauge.inc();
        InFlight(gauge)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}
