//! Web Bot Auth as draft-ietf-webbotauth-httpsig-protocol (editor's copy
//! of 9 October 2026) says: its own test vectors verified, the signer
//! checked against Cloudflare's `web-bot-auth` verifier reading the
//! request through its own lookup (not ours), and a hostile
//! `Signature-Agent` refused in bounded time.

use std::time::{Duration, Instant};

use base64::Engine as _;
use url::Url;
use web_bot_auth::components::{CoveredComponent, DerivedComponent, HTTPField, HTTPFieldParameters};
use web_bot_auth::keyring::{Algorithm, KeyRing};
use web_bot_auth::message_signatures::SignedMessage;
use web_bot_auth::{SignatureAgentLink, WebBotAuthVerifier};
use webcanon_client::bot_auth::{
    KeyDirectory, Reason, RequestHead, RequestSigner, SignatureAgentForm, SigningKey, Verdict, Verifier, directory,
};

/// The Ed25519 key of RFC 9421 Appendix B.1.4, which the draft's vectors use.
const TEST_KEY_X: &str = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs";
const TEST_KEY_D: &str = "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU";
const TEST_KEY_ID: &str = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";
/// The vectors' `created`.
const CREATED: i64 = 1_735_689_600;

fn test_directory() -> KeyDirectory {
    let jwks = format!(r#"{{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{TEST_KEY_X}"}}]}}"#);
    KeyDirectory::parse(&jwks).unwrap()
}

fn head(text: &str) -> RequestHead {
    RequestHead::parse_many(text).unwrap().remove(0)
}

/// Appendix E.2.1 ("Signature-Agent Included Present on the Request"), the
/// request and headers as printed (RFC 8792 line wrapping undone).
const E_2_1: &str = r#"GET /foo HTTP/1.1
Host: example.com
Signature-Agent: sig2="https://signature-agent.test"
Signature-Input: sig2=("@authority" "signature-agent";key="sig2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"
Signature: sig2=:CGokAoY/FrPpyuzTe1Fb2kLTAH9Idw6qSFd1+D77r1firsMRCxeuLu5e6O+ek3zQgDMAzjiXtLVfqE00xnABCQ==:
"#;

/// Appendix E.2.2 ("Legacy Signature-Agent, sf-string").
const E_2_2: &str = r#"GET /foo HTTP/1.1
Host: example.com
Signature-Agent: "https://signature-agent.test"
Signature-Input: sig2=("@authority" "signature-agent");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"
Signature: sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:
"#;

#[test]
fn the_protocol_drafts_test_vectors_verify_and_name_their_form() {
    // The key's id is its RFC 7638 thumbprint, as §5.2 requires.
    let seed: [u8; 32] =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(TEST_KEY_D).unwrap().try_into().unwrap();
    assert_eq!(SigningKey::from_seed(&seed).key_id(), TEST_KEY_ID);
    for (vector, form) in [(E_2_1, SignatureAgentForm::Dictionary), (E_2_2, SignatureAgentForm::Legacy)] {
        let request = head(vector);
        assert_eq!(request.signature_agent_form(), Some(form));
        match Verifier::new(test_directory()).verify(&request, CREATED) {
            Verdict::Valid(signer) => {
                assert_eq!(signer.agent.as_deref(), Some("https://signature-agent.test"), "{form}");
                assert_eq!(signer.form, Some(form));
                assert_eq!(signer.key_id, TEST_KEY_ID);
            }
            Verdict::Invalid(reason) => panic!("{form}: {reason}"),
        }
    }
    // §6.6.1: the member's key is part of the signature base, so renaming
    // it (here and in the covered component) breaks the signature.
    let relabelled = E_2_1.replace("sig2=\"https", "agent=\"https").replace("key=\"sig2\"", "key=\"agent\"");
    assert!(matches!(Verifier::new(test_directory()).verify(&head(&relabelled), CREATED), Verdict::Invalid(_)));
}

#[test]
fn the_dictionary_member_must_be_covered_under_the_signatures_label() {
    let rows = [
        // Covered without the key: the legacy component on a dictionary field.
        (E_2_1.replace(r#""signature-agent";key="sig2""#, r#""signature-agent""#), "missing_component"),
        // Covered under another label's member.
        (E_2_1.replace(r#"key="sig2""#, r#"key="other""#), "missing_component"),
        // The member is not there.
        (E_2_1.replace(r#"Signature-Agent: sig2="#, r#"Signature-Agent: sig3="#), "malformed"),
        // §5.2.1: a member that carries parameters is ignored, so it names no agent.
        (E_2_1.replace(r#"signature-agent.test""#, r#"signature-agent.test";type=jwks"#), "malformed"),
    ];
    for (text, code) in rows {
        match Verifier::new(test_directory()).verify(&head(&text), CREATED) {
            Verdict::Invalid(reason) => assert_eq!(reason.code(), code, "{reason}"),
            Verdict::Valid(_) => panic!("valid: {text}"),
        }
    }
}

/// A request as Cloudflare's verifier reads it: headers by name, a
/// dictionary member picked by its `key` with the `sfv` crate, written
/// here rather than taken from webcanon's `RequestHead`.
struct Independent {
    authority: String,
    headers: Vec<(&'static str, String)>,
}

impl SignedMessage for Independent {
    fn lookup_component(&self, name: &CoveredComponent) -> Vec<String> {
        match name {
            CoveredComponent::Derived(DerivedComponent::Authority { .. }) => vec![self.authority.clone()],
            CoveredComponent::HTTP(HTTPField { name, parameters }) => {
                let values = self.headers.iter().filter(|(n, _)| n == name).map(|(_, v)| v.clone());
                match parameters.0.as_slice() {
                    [] => values.collect(),
                    [HTTPFieldParameters::Key(key)] => values
                        .filter_map(|v| sfv::Parser::new(&v).parse_dictionary().ok())
                        .filter_map(|d| match d.get(key.as_str()) {
                            Some(sfv::ListEntry::Item(item)) => Some(sfv::SerializeValue::serialize_value(item)),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }
}

#[test]
fn signatures_verify_with_cloudflares_verifier_in_both_forms() {
    let key = SigningKey::from_seed(&[42; 32]);
    let mut ring = KeyRing::default();
    let public = directory::jwks(std::slice::from_ref(&key));
    let x = public["keys"][0]["x"].as_str().unwrap();
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(x).unwrap();
    ring.import_raw(key.key_id().to_string(), Algorithm::Ed25519, raw);
    let ours = KeyDirectory::parse(&public.to_string()).unwrap();
    let url = Url::parse("https://origin.example:8443/page?q=1").unwrap();
    let rows = [
        (SignatureAgentForm::Dictionary, "https://bot.example/.well-known/http-message-signatures-directory"),
        (SignatureAgentForm::Legacy, "https://bot.example"),
    ];
    for (form, agent) in rows {
        let signer = RequestSigner::with_form(key.clone(), "https://bot.example", form).unwrap();
        let signed = signer.sign(&url).unwrap();
        let text = |v: &reqwest::header::HeaderValue| v.to_str().unwrap().to_string();
        let message = Independent {
            authority: "origin.example:8443".into(),
            headers: vec![
                ("signature-agent", text(&signed.signature_agent)),
                ("signature-input", text(&signed.signature_input)),
                ("signature", text(&signed.signature)),
            ],
        };
        let verifier = WebBotAuthVerifier::parse(&message).unwrap_or_else(|e| panic!("{form}: {e:?}"));
        assert_eq!(verifier.get_signature_agents(), &vec![SignatureAgentLink::External(agent.into())], "{form}");
        verifier.verify(&ring, Some(key.key_id().to_string())).unwrap_or_else(|e| panic!("{form}: {e:?}"));
        // And webcanon's own verifier, from the request as a log has it.
        let logged = format!(
            "GET /page?q=1 HTTP/1.1\nHost: origin.example:8443\nSignature-Agent: {}\nSignature-Input: {}\nSignature: {}\n",
            message.headers[0].1, message.headers[1].1, message.headers[2].1
        );
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        match Verifier::new(ours.clone()).verify(&head(&logged), now) {
            Verdict::Valid(signer) => {
                assert_eq!(signer.form, Some(form));
                assert_eq!(signer.agent.as_deref(), Some(agent));
            }
            Verdict::Invalid(reason) => panic!("{form}: {reason}"),
        }
        // Another authority: Cloudflare's verifier refuses it too.
        let moved = Independent { authority: "other.example".into(), headers: message.headers.clone() };
        let verifier = WebBotAuthVerifier::parse(&moved).unwrap();
        assert!(verifier.verify(&ring, Some(key.key_id().to_string())).is_err(), "{form}");
    }
}

/// A `Signature-Agent` of 100,000 members: refused as malformed in bounded
/// time, before any dictionary is built; read from a log, its line is over
/// the line limit.
#[test]
fn a_huge_signature_agent_dictionary_is_refused_quickly() {
    let members: Vec<String> = (0..100_000).map(|i| format!("m{i}=\"https://bot{i}.example\"")).collect();
    let value = format!("sig2=\"https://signature-agent.test\", {}", members.join(", "));
    let mut request = head(E_2_1);
    for (name, v) in &mut request.headers {
        if name == "signature-agent" {
            v.clone_from(&value);
        }
    }
    let started = Instant::now();
    let verdict = Verifier::new(test_directory()).verify(&request, CREATED);
    let elapsed = started.elapsed();
    match verdict {
        Verdict::Invalid(reason @ Reason::Malformed(_)) => {
            assert!(reason.to_string().contains("Signature-Agent is longer than 16384 bytes"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // Within the line limit, the member count bounds it.
    let within: Vec<String> = (0..20).map(|i| format!("m{i}=\"https://b{i}.example\"")).collect();
    let mut request = head(E_2_1);
    for (name, v) in &mut request.headers {
        if name == "signature-agent" {
            *v = format!("sig2=\"https://signature-agent.test\", {}", within.join(", "));
        }
    }
    match Verifier::new(test_directory()).verify(&request, CREATED) {
        Verdict::Invalid(reason @ Reason::Malformed(_)) => {
            assert!(reason.to_string().contains("Signature-Agent has more than 16 members"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(elapsed < Duration::from_millis(200), "{elapsed:?}");
    let logged = format!("GET / HTTP/1.1\nHost: example.com\nSignature-Agent: {value}\n");
    let err = RequestHead::parse_many(&logged).unwrap_err();
    assert!(err.to_string().contains("longer than 16384 bytes"), "{err}");
}
