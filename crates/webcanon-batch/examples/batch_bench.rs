//! Helpers of `benches/batch.sh`:
//!
//! - `batch_bench gen OUT.parquet URLS ORIGINS` writes URLS URLs spread over
//!   ORIGINS origins (`http://hN.bench.test:PORT/...`, PORT from `$PORT`)
//!   in a Parquet column `url`;
//! - `batch_bench serve` starts a loopback server answering robots.txt for
//!   any host name, prints its port and serves until killed;
//! - `batch_bench serve-lean` does the same with a server that keeps no log
//!   of requests (for runs of millions of origins: `benches/batch_scale.sh`);
//! - `batch_bench count OUT.parquet` reads an output and prints its rows and
//!   distinct URLs;
//! - `batch_bench statuses SNAPSHOT` prints a snapshot's rows, distinct
//!   origins and rows per `status` as one JSON object.

use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray};
use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen") => generate(&args[1], args[2].parse().unwrap(), args[3].parse().unwrap()),
        Some("serve") => serve(),
        Some("serve-lean") => serve_lean(),
        Some("count") => count(&args[1]),
        Some("statuses") => statuses(&args[1]),
        _ => {
            eprintln!("usage: batch_bench gen OUT.parquet URLS ORIGINS | batch_bench serve");
            std::process::exit(2);
        }
    }
}

fn generate(out: &str, urls: usize, origins: usize) {
    let port: u16 = std::env::var("PORT").expect("PORT").parse().unwrap();
    let file = std::fs::File::create(out).unwrap();
    let schema = Arc::new(arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new(
        "url",
        arrow::datatypes::DataType::Utf8,
        false,
    )]));
    let mut writer = ArrowWriter::try_new(file, schema.clone(), None).unwrap();
    let chunk = 100_000;
    for start in (0..urls).step_by(chunk) {
        let values = StringArray::from_iter_values((start..(start + chunk).min(urls)).map(|i| {
            // Spread origins so each batch touches many of them.
            let origin = (i.wrapping_mul(7919)) % origins;
            match i % 4 {
                0 => format!("http://h{origin}.bench.test:{port}/private/{i}"),
                1 => format!("http://h{origin}.bench.test:{port}/articles/{i}?ref=feed"),
                2 => format!("http://h{origin}.bench.test:{port}/d{}/page-{i}.html", origin % 10),
                _ => format!("http://h{origin}.bench.test:{port}/tmp/{i}.bak"),
            }
        }));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values) as ArrayRef]).unwrap();
        writer.write(&batch).unwrap();
    }
    writer.close().unwrap();
}

fn serve() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let server = webcanon_test::TestServer::start().await;
        server.route(
            "/robots.txt",
            webcanon_test::Route::text(
                200,
                "User-agent: *\nDisallow: /private/\nDisallow: /tmp/*.bak$\nAllow: /private/pub\n\n\
                 User-agent: BenchBot\nDisallow: /d3/\nAllow: /d3/ok\n",
            ),
        );
        println!("{}", server.port());
        std::future::pending::<()>().await;
    });
}

fn count(path: &str) {
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let mut rows = 0usize;
    let mut distinct = std::collections::HashSet::new();
    for batch in reader {
        let batch = batch.unwrap();
        rows += batch.num_rows();
        let urls = batch.column_by_name("url").unwrap().as_any().downcast_ref::<StringArray>().unwrap().clone();
        distinct.extend(urls.iter().flatten().map(str::to_string));
    }
    println!("{rows} rows, {} distinct URLs", distinct.len());
}

/// Answers every request on a connection with the bench's robots.txt,
/// keeping the connection open, logging nothing.
fn serve_lean() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const BODY: &str = "User-agent: *\nDisallow: /private/\nDisallow: /tmp/*.bak$\nAllow: /private/pub\n\n\
                        User-agent: BenchBot\nDisallow: /d3/\nAllow: /d3/ok\n";
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("{}", listener.local_addr().unwrap().port());
        let response =
            format!("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\r\n{BODY}", BODY.len());
        let response: &'static [u8] = Box::leak(response.into_bytes().into_boxed_slice());
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { continue };
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 8192];
                let mut filled = 0;
                loop {
                    let Ok(n) = socket.read(&mut buffer[filled..]).await else { return };
                    if n == 0 {
                        return;
                    }
                    filled += n;
                    // One answer per complete request head (no request has a body).
                    while let Some(end) = buffer[..filled].windows(4).position(|w| w == b"\r\n\r\n") {
                        if socket.write_all(response).await.is_err() {
                            return;
                        }
                        buffer.copy_within(end + 4..filled, 0);
                        filled -= end + 4;
                    }
                    if filled == buffer.len() {
                        return;
                    }
                }
            });
        }
    });
}

fn statuses(path: &str) {
    let mut counts = std::collections::BTreeMap::<String, u64>::new();
    let mut origins = std::collections::HashSet::<String>::new();
    let mut rows = 0u64;
    for file in webcanon_batch::snapshot::dataset_files(std::path::Path::new(path)).unwrap() {
        let builder =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(file).unwrap())
                .unwrap();
        let mask = parquet::arrow::ProjectionMask::columns(builder.parquet_schema(), ["origin", "status"]);
        for batch in builder.with_projection(mask).build().unwrap() {
            let batch = batch.unwrap();
            rows += batch.num_rows() as u64;
            let column =
                |name| batch.column_by_name(name).unwrap().as_any().downcast_ref::<StringArray>().unwrap().clone();
            for status in column("status").iter().flatten() {
                *counts.entry(status.to_string()).or_default() += 1;
            }
            origins.extend(column("origin").iter().flatten().map(str::to_string));
        }
    }
    println!("{}", serde_json::json!({"rows": rows, "origins": origins.len(), "statuses": counts}));
}
