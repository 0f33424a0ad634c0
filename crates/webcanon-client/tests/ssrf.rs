//! The SSRF guard: a table of bad inputs, each refused before any
//! connection with its reason, next to allowed inputs so the table cannot
//! pass by refusing everything; names resolved through a static table
//! (no DNS query leaves the machine); and loopback servers that must see
//! no request at all when the guard refuses.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use url::Url;
use webcanon_client::ssrf::{ResolveOverride, SsrfGuard, SsrfPolicy, StaticLookup};
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Route, TestServer};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn guard() -> SsrfGuard {
    let lookup = StaticLookup::new()
        .with("public.test", &[ip("93.184.216.34"), ip("2606:2800:220:1:248:1893:25c8:1946")])
        .with("private.test", &[ip("10.1.2.3")])
        .with("loopback.test", &[ip("127.0.0.1")])
        .with("metadata.test", &[ip("169.254.169.254")])
        .with("mixed.test", &[ip("93.184.216.34"), ip("192.168.1.10")])
        .with("aaaa-private.test", &[ip("93.184.216.34"), ip("fd00::1")])
        .with("mapped.test", &[ip("::ffff:127.0.0.1")])
        .with("nat64.test", &[ip("64:ff9b::a9fe:a9fe")])
        .with("empty.test", &[]);
    SsrfGuard::with_lookup(SsrfPolicy::default(), Arc::new(lookup))
}

/// Vets a URL the way the client does: the URL first, then its name.
async fn vet(guard: &SsrfGuard, input: &str) -> Result<(), String> {
    let url = Url::parse(input).map_err(|e| format!("unparsable: {e}"))?;
    guard.check_url(&url).map_err(|e| e.reason().to_string())?;
    if let Some(url::Host::Domain(name)) = url.host() {
        guard.resolve(name, None).await.map_err(|e| e.reason().to_string())?;
    }
    Ok(())
}

const REFUSED: &[(&str, &str)] = &[
    // Schemes (checked first: `gopher://127.0.0.1/` has an opaque host).
    ("file:///etc/passwd", "scheme"),
    ("gopher://127.0.0.1/", "scheme"),
    ("dict://127.0.0.1:11211/", "scheme"),
    ("ftp://example.com/", "scheme"),
    ("data:text/plain,hello", "scheme"),
    ("javascript:alert(1)", "scheme"),
    ("ws://example.com/", "scheme"),
    ("blob:https://example.com/x", "scheme"),
    // Loopback, every spelling the URL parser normalises.
    ("http://127.0.0.1/", "loopback"),
    ("http://127.1/", "loopback"),
    ("http://127.255.255.254/", "loopback"),
    ("http://2130706433/", "loopback"),
    ("http://0x7f000001/", "loopback"),
    ("http://0x7f.1/", "loopback"),
    ("http://0177.0.0.1/", "loopback"),
    ("http://017700000001/", "loopback"),
    ("http://127.0.0.1./", "loopback"),
    ("http://%31%32%37.0.0.1/", "loopback"),
    ("http://\u{ff11}\u{ff12}\u{ff17}.\u{ff10}.\u{ff10}.\u{ff11}/", "loopback"),
    ("http://[::1]/", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://[::ffff:7f00:1]/", "loopback"),
    ("http://[::127.0.0.1]/", "loopback"),
    ("http://[0:0:0:0:0:ffff:127.0.0.1]:8080/", "loopback"),
    // Zero.
    ("http://0/", "unspecified"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://0.0.0.0:8080/", "unspecified"),
    ("http://[::]/", "unspecified"),
    // Local names.
    ("http://localhost/", "localhost"),
    ("http://LOCALHOST:8080/", "localhost"),
    ("http://localhost./", "localhost"),
    ("http://foo.localhost/", "localhost"),
    ("http://localhost.localdomain/", "localhost"),
    ("http://LOCALHOST.LOCALDOMAIN./", "localhost"),
    ("http://ip6-localhost/", "localhost"),
    ("http://ip6-loopback/", "localhost"),
    ("http://localhost6/", "localhost"),
    ("http://localhost6.localdomain6/", "localhost"),
    ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
    ("http://metadata/", "metadata"),
    ("http://instance-data/latest/", "metadata"),
    // Private and special IPv4.
    ("http://10.0.0.1/", "private"),
    ("http://172.16.0.1/", "private"),
    ("http://172.31.255.255/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://100.64.0.1/", "shared_cgnat"),
    ("http://100.127.255.255/", "shared_cgnat"),
    ("http://169.254.169.254/latest/meta-data/", "metadata"),
    ("http://169.254.170.2/v2/credentials", "metadata"),
    ("http://169.254.1.1/", "link_local"),
    ("http://192.0.0.1/", "reserved"),
    ("http://192.0.2.1/", "documentation"),
    ("http://198.18.0.1/", "benchmarking"),
    ("http://198.51.100.1/", "documentation"),
    ("http://203.0.113.1/", "documentation"),
    ("http://192.88.99.1/", "reserved"),
    ("http://224.0.0.1/", "multicast"),
    ("http://239.255.255.250/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://255.255.255.255/", "broadcast"),
    // IPv6, and IPv4 carried inside IPv6.
    ("http://[fd00:ec2::254]/", "metadata"),
    ("http://[fc00::1]/", "unique_local"),
    ("http://[fe80::1]/", "link_local"),
    ("http://[fec0::1]/", "unique_local"),
    ("http://[ff02::1]/", "multicast"),
    ("http://[64:ff9b::a9fe:a9fe]/", "metadata"),
    ("http://[64:ff9b:1::a00:1]/", "private"),
    ("http://[2002:a9fe:a9fe::1]/", "metadata"),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "loopback"),
    ("http://[100::1]/", "reserved"),
    ("http://[2001:db8::1]/", "documentation"),
    ("http://[0:0:0:0:0:ffff:169.254.169.254]/", "metadata"),
    ("http://[::ffff:0:127.0.0.1]/", "loopback"),
    ("http://[::ffff:0:7f00:1]/", "loopback"),
    ("http://[::ffff:0:a9fe:a9fe]/", "metadata"),
    ("http://[::ffff:0:10.0.0.1]/", "private"),
    // Userinfo tricks: the real host is classified, credentials refused.
    ("http://public.test@127.0.0.1/", "loopback"),
    ("http://user:pass@93.184.216.34/", "userinfo"),
    ("http://1.1.1.1 &@2.2.2.2# @3.3.3.3/", "userinfo"),
    ("http://example.com@10.0.0.1:80/", "private"),
    // Names resolving to non-public addresses.
    ("http://private.test/", "private"),
    ("http://loopback.test:8080/", "loopback"),
    ("http://metadata.test/", "metadata"),
    ("http://mixed.test/", "private"),
    ("http://aaaa-private.test/", "unique_local"),
    ("http://mapped.test/", "loopback"),
    ("http://nat64.test/", "metadata"),
    ("http://empty.test/", "no_address"),
    ("http://unknown-name.test/", "lookup_failed"),
];

const ALLOWED: &[&str] = &[
    "http://93.184.216.34/",
    "https://8.8.8.8/dns",
    "http://172.32.0.1/",
    "http://100.128.0.1/",
    "http://198.20.0.1/",
    "http://[2606:4700:4700::1111]/",
    "http://[::ffff:8.8.8.8]/",
    "http://[2002:0808:0808::1]/",
    "https://public.test/path?q=1",
    "HTTP://PUBLIC.TEST/",
];

#[tokio::test]
async fn every_bad_input_is_refused_with_its_reason() {
    assert!(REFUSED.len() >= 60, "{} cases", REFUSED.len());
    let guard = guard();
    let mut failures = Vec::new();
    for (input, reason) in REFUSED {
        match vet(&guard, input).await {
            Err(got) if got == *reason => {}
            other => failures.push(format!("{input}: expected refusal `{reason}`, got {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn public_inputs_are_allowed() {
    let guard = guard();
    for input in ALLOWED {
        assert_eq!(vet(&guard, input).await, Ok(()), "{input}");
    }
}

#[tokio::test]
async fn allow_private_opens_exactly_its_networks() {
    let lookup = StaticLookup::new().with("intranet.test", &[ip("10.1.2.3")]);
    let policy = SsrfPolicy::default().allow_private("10.1.0.0/16".parse().unwrap());
    let guard = SsrfGuard::with_lookup(policy, Arc::new(lookup));
    assert_eq!(vet(&guard, "http://intranet.test/").await, Ok(()));
    assert_eq!(vet(&guard, "http://10.1.255.1/").await, Ok(()));
    assert_eq!(vet(&guard, "http://10.2.0.1/").await, Err("private".into()));
    assert_eq!(vet(&guard, "http://127.0.0.1/").await, Err("loopback".into()));
    assert_eq!(vet(&guard, "http://169.254.169.254/").await, Err("metadata".into()));
}

#[tokio::test]
async fn resolve_overrides_parse_and_are_still_vetted() {
    let entry: ResolveOverride = "Docs.Example.test:8443:127.0.0.1".parse().unwrap();
    assert_eq!((entry.host.as_str(), entry.port, entry.addr), ("docs.example.test", 8443, ip("127.0.0.1")));
    let v6: ResolveOverride = "h.test:80:[::1]".parse().unwrap();
    assert_eq!(v6.addr, ip("::1"));
    for bad in ["h.test:80", ":80:127.0.0.1", "h.test:http:127.0.0.1", "h.test:80:not-an-ip", "h.test:99999:1.2.3.4"] {
        assert!(bad.parse::<ResolveOverride>().is_err(), "{bad}");
    }
    // An override alone does not open a private address.
    let guard = SsrfGuard::with_lookup(SsrfPolicy::default().resolve(entry.clone()), Arc::new(StaticLookup::new()));
    assert_eq!(vet(&guard, "http://docs.example.test:8443/").await, Err("loopback".into()));
    let guard = SsrfGuard::with_lookup(
        SsrfPolicy::default().resolve(entry).allow_private("127.0.0.1/32".parse().unwrap()),
        Arc::new(StaticLookup::new()),
    );
    assert_eq!(vet(&guard, "http://docs.example.test:8443/").await, Ok(()));
}

#[test]
fn the_default_policy_refuses_loopback() {
    let guard = SsrfGuard::new(SsrfPolicy::default());
    let err = guard.check_url(&Url::parse("http://127.0.0.1:8080/").unwrap()).unwrap_err();
    assert_eq!(err.reason(), "loopback");
    assert_eq!(err.to_string(), "refused http://127.0.0.1:8080/: address 127.0.0.1 is loopback");
}

fn client(policy: SsrfPolicy) -> Client {
    Client::builder().cache(CacheSetting::None).timeout(Duration::from_secs(5)).ssrf_policy(policy).build().unwrap()
}

#[tokio::test]
async fn refused_fetches_never_connect() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/", Route::html(200, "<p>hello</p>"));
    let port = server.port();
    let named = format!("site.test:{port}:127.0.0.1").parse::<ResolveOverride>().unwrap();
    let inputs = [
        server.url("/"),
        format!("http://localhost:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://public@127.0.0.1:{port}/"),
        format!("http://site.test:{port}/"),
    ];
    let default = client(SsrfPolicy::default().resolve(named.clone()));
    for input in &inputs {
        let err = default.fetch(input).await.unwrap_err();
        assert!(err.is_ssrf(), "{input}: {err:?}");
    }
    assert!(server.requests().is_empty(), "{:?}", server.requests());

    // With the opt-ins, the same server is reachable by name.
    let opted = client(SsrfPolicy::default().resolve(named).allow_private("127.0.0.1/32".parse().unwrap()));
    let result = opted.fetch(&format!("http://site.test:{port}/")).await.unwrap();
    assert_eq!(result.status, 200);
    assert_eq!(server.hits("/"), 1);
    assert!(server.requests().iter().all(|r| r.host.as_deref() == Some(&format!("site.test:{port}"))));
}

/// `--resolve HOST:PORT:ADDR` is for that port only, as with curl: a
/// redirect to the same name on another port asks the name lookup, which
/// here knows nothing, so it is never sent to the override's address.
#[tokio::test]
async fn a_resolve_override_applies_to_its_port_only() {
    let site = TestServer::start().await;
    let other = TestServer::start().await;
    other.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    other.route("/landing", Route::text(200, "reached through the override of another port"));
    site.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    site.route("/go", Route::redirect(302, &format!("http://site.test:{}/landing", other.port())));
    let client = Client::builder()
        .cache(CacheSetting::None)
        .timeout(Duration::from_secs(5))
        .name_lookup(Arc::new(StaticLookup::new()))
        .ssrf_policy(
            SsrfPolicy::default()
                .resolve(format!("site.test:{}:127.0.0.1", site.port()).parse().unwrap())
                .allow_private("127.0.0.1/32".parse().unwrap()),
        )
        .build()
        .unwrap();
    let err = client.fetch(&format!("http://site.test:{}/go", site.port())).await.unwrap_err();
    assert!(err.to_string().contains("site.test"), "{err}");
    assert_eq!(site.hits("/go"), 1, "the override's own port is reached");
    assert!(other.requests().is_empty(), "another port of the name is not: {:?}", other.requests());
}

#[tokio::test]
async fn redirects_to_private_addresses_are_refused_before_connecting() {
    let public_face = TestServer::start_on("127.0.0.2:0").await;
    let private = TestServer::start_on("127.0.0.3:0").await;
    private.route("/secret", Route::text(200, "secret"));
    public_face.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    public_face.route("/go", Route::redirect(302, &private.url("/secret")));
    public_face.route("/go6", Route::redirect(307, "http://[::1]/"));
    public_face.route("/go-named", Route::redirect(301, "http://localhost/"));
    // Only 127.0.0.2 stands for "the public internet" here.
    let client = client(SsrfPolicy::default().allow_private("127.0.0.2/32".parse().unwrap()));
    for path in ["/go", "/go6", "/go-named"] {
        let err = client.fetch(&public_face.url(path)).await.unwrap_err();
        assert!(err.is_ssrf(), "{path}: {err:?}");
    }
    assert!(private.requests().is_empty());
}

/// A name that does not resolve is a network failure, never an SSRF
/// refusal: nothing was refused, there is no address to reach. For
/// robots.txt that makes it unreachable (RFC 9309), so `respect` refuses
/// with the reason in the evidence; a page or a redirect hop that does not
/// resolve is a fetch failure (`fetch`, exit 5, reason `dns`).
#[tokio::test]
async fn names_that_do_not_resolve_are_network_failures_not_refusals() {
    use webcanon_client::error::{Error, ErrorBody, FetchError};
    use webcanon_core::policy::{RobotsMode, Verdict};

    let server = TestServer::start().await;
    let port = server.port();
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    server.route("/away", Route::redirect(302, &format!("http://nowhere.test:{port}/x")));
    let lookup = StaticLookup::new()
        .with("site.test", &[ip("127.0.0.1")])
        .with("lost.test", &[ip("127.0.0.1")])
        .with("empty.test", &[]);
    let client = |mode: RobotsMode| {
        Client::builder()
            .cache(CacheSetting::None)
            .mode(mode)
            .timeout(Duration::from_secs(5))
            .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap()))
            .name_lookup(Arc::new(lookup.clone()))
            .build()
            .unwrap()
    };
    let (respect, report_only) = (client(RobotsMode::Respect), client(RobotsMode::ReportOnly));

    for host in ["nowhere.test", "empty.test"] {
        let input = format!("http://{host}:{port}/page");
        // robots.txt unreachable: refused by policy, saying why.
        let Err(Error::Policy(refusal)) = respect.fetch(&input).await else { panic!("{input}: a policy refusal") };
        assert_eq!(refusal.evidence.verdict, Verdict::UnknownUnreachable, "{input}");
        let why = refusal.evidence.error.as_deref().unwrap_or_default();
        assert!(why.starts_with(&format!("cannot resolve {host}: ")), "{input}: {why}");
        assert!(refusal.to_string().contains(&format!("robots.txt could not be read: {why}")), "{refusal}");
        let evidence = respect.check(&input).await.unwrap().robots;
        assert_eq!(evidence.verdict, Verdict::UnknownUnreachable, "{input}");

        // Not refused: the page itself cannot be reached.
        let err = report_only.fetch(&input).await.unwrap_err();
        let Error::Fetch(FetchError::Resolve { host: got, .. }) = &err else { panic!("{input}: {err:?}") };
        assert_eq!(got, host);
        assert_eq!((err.kind(), err.code()), ("fetch", 5), "{input}");
        assert!(err.to_string().starts_with(&format!("cannot resolve {host}: ")), "{input}: {err}");
        assert_eq!(ErrorBody::from_error(&err, &input).reason.as_deref(), Some("dns"), "{input}");
    }

    // A redirect to a name that does not resolve: its robots.txt is
    // unreachable first; without the refusal, the hop fails to resolve.
    let away = format!("http://site.test:{port}/away");
    let Err(Error::Policy(refusal)) = respect.fetch(&away).await else { panic!("{away}: a policy refusal") };
    assert_eq!(refusal.url, format!("http://nowhere.test:{port}/x"));
    assert_eq!(refusal.evidence.verdict, Verdict::UnknownUnreachable);
    let err = report_only.fetch(&away).await.unwrap_err();
    assert!(matches!(&err, Error::Fetch(FetchError::Resolve { host, .. }) if host == "nowhere.test"), "{err:?}");
    assert_eq!(server.hits("/away"), 2);

    // robots.txt redirected to a name that does not resolve: unreachable.
    server.route("/robots.txt", Route::redirect(301, &format!("http://nowhere.test:{port}/robots.txt")));
    let evidence = respect.check(&format!("http://lost.test:{port}/page")).await.unwrap().robots;
    assert_eq!(evidence.verdict, Verdict::UnknownUnreachable);
    assert!(evidence.error.unwrap().starts_with("cannot resolve nowhere.test: "));
}
