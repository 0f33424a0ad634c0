//! The peer side of the whole-process comparison in `benches/eval_process.sh`:
//! the same job as `webcanon robots eval --robots FILE --agent TOKEN URLS`,
//! written with `texting_robots`. Output: `allow` or `disallow`, a tab, the URL.
//!
//! Usage: peer_texting_robots_eval ROBOTS_FILE AGENT URLS_FILE

use std::io::{BufRead, BufReader, BufWriter, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, robots, agent, urls] = args.as_slice() else {
        return Err("usage: peer_texting_robots_eval ROBOTS_FILE AGENT URLS_FILE".into());
    };
    let body = std::fs::read(robots)?;
    let robot = texting_robots::Robot::new(agent, &body).map_err(|e| e.to_string())?;
    let input = BufReader::new(std::fs::File::open(urls)?);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in input.lines() {
        let url = line?;
        let word = if robot.allowed(&url) { "allow" } else { "disallow" };
        writeln!(out, "{word}\t{url}")?;
    }
    out.flush()?;
    Ok(())
}
