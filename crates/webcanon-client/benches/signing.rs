//! Web Bot Auth's cost, measured in one run:
//! - signing one request (`RequestSigner::sign`: nonce, signature base,
//!   Ed25519, the three header values) and verifying one (`Verifier`);
//! - the whole fetch path on loopback with signing next to the same path
//!   without it (two clients, the same cached robots.txt and page).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use webcanon_client::bot_auth::{KeyDirectory, RequestHead, RequestSigner, SigningKey, Verifier, directory};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Route, TestServer};

fn benches(c: &mut Criterion) {
    let key = SigningKey::from_seed(&[42; 32]);
    let signer = RequestSigner::new(key.clone(), "https://bot.example").unwrap();
    let url = url::Url::parse("https://example.com/docs/page?x=1").unwrap();

    let mut group = c.benchmark_group("web bot auth");
    group.bench_function("sign one request", |b| b.iter(|| signer.sign(&url).unwrap()));
    let directory = KeyDirectory::parse(&directory::jwks(&[key]).to_string()).unwrap();
    let signed = signer.sign(&url).unwrap();
    let head = RequestHead {
        authority: Some("example.com".into()),
        headers: vec![
            ("signature-agent".into(), signed.signature_agent.to_str().unwrap().into()),
            ("signature-input".into(), signed.signature_input.to_str().unwrap().into()),
            ("signature".into(), signed.signature.to_str().unwrap().into()),
        ],
    };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    group.bench_function("verify one request", |b| {
        // A new verifier each time: the nonce cache would call the second a replay.
        b.iter(|| Verifier::new(directory.clone()).verify(&head, now))
    });
    group.finish();

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = runtime.block_on(async {
        let server = TestServer::start().await;
        server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
        let markdown = format!("# Notes\n\n{}", "A line of text about robots and agents.\n".repeat(50));
        server.route("/notes.md", Route::bytes(200, "text/markdown; charset=utf-8", markdown.into_bytes()));
        server
    });
    let client = |signer: Option<RequestSigner>| {
        let mut builder = Client::builder()
            .agent("BenchBot")
            .cache(CacheSetting::Memory)
            .timeout(Duration::from_secs(5))
            .alternatives(false)
            .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap()));
        if let Some(signer) = signer {
            builder = builder.signer(signer);
        }
        builder.build().unwrap()
    };
    let plain = client(None);
    let signing = client(Some(signer));
    let page = server.url("/notes.md");
    for c in [&plain, &signing] {
        runtime.block_on(c.fetch(&page)).unwrap();
    }
    let mut group = c.benchmark_group("fetch");
    group.measurement_time(Duration::from_secs(4));
    for round in 1..=2 {
        // Two rounds, interleaved, so that drift on a shared machine shows.
        group.bench_function(format!("Client::fetch /notes.md, unsigned, round {round}"), |b| {
            b.to_async(&runtime).iter(|| async { plain.fetch(&page).await.unwrap() })
        });
        group.bench_function(format!("Client::fetch /notes.md, signed, round {round}"), |b| {
            b.to_async(&runtime).iter(|| async { signing.fetch(&page).await.unwrap() })
        });
    }
    group.finish();
    drop(server);
}

criterion_group! {
    name = signing;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3)).sample_size(30);
    targets = benches
}
criterion_main!(signing);
