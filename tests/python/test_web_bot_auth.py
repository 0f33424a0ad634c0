"""Web Bot Auth: every request webcanon makes with a signing key carries a
signature that an independent RFC 9421 implementation (the
`http-message-signatures` package, on `cryptography`'s Ed25519) verifies
against the published key directory. Requests are captured by two loopback
servers, two origins: robots.txt, llms.txt, a page, its Markdown
alternative, a redirect hop from one origin to the other, sitemaps."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import subprocess
import types
from typing import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from http_message_signatures import HTTPMessageVerifier, algorithms
from http_message_signatures.exceptions import InvalidSignature
from http_message_signatures.resolvers import MappingKeyResolver

from loopback import LoopbackServer

AGENT_URL = "https://bot.example"


@pytest.fixture()
def origins() -> Iterator[tuple[LoopbackServer, LoopbackServer]]:
    a, b = LoopbackServer(), LoopbackServer()
    a.route("/robots.txt", 200, f"User-agent: *\nAllow: /\nSitemap: {a.origin}/sitemap.xml\n")
    a.route("/start", 302, "moved", headers={"Location": f"{b.origin}/page"})
    a.route(
        "/sitemap.xml",
        200,
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{a.origin}/start</loc></url></urlset>",
        "application/xml",
    )
    b.route("/robots.txt", 200, "User-agent: *\nAllow: /\n")
    b.route("/llms.txt", 200, f"# B\n\n> A site.\n\n## Docs\n\n- [Page]({b.origin}/page.md)\n")
    b.route(
        "/page",
        200,
        '<html><head><title>Page</title><link rel="alternate" type="text/markdown" href="/page.md"></head>'
        "<body><main><p>A page with a Markdown copy, long enough to read as prose here.</p></main></body></html>",
        "text/html",
    )
    b.route("/page.md", 200, "# Page\n\nThe Markdown copy of the page, with a sentence.\n", "text/markdown")
    yield a, b
    a.close()
    b.close()


def thumbprint(x: str) -> str:
    """RFC 7638, written here from the RFC (not webcanon's code)."""
    canonical = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": x}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


def public_keys(directory: dict) -> dict[str, Ed25519PublicKey]:
    keys = {}
    for jwk in directory["keys"]:
        assert jwk["kty"] == "OKP" and jwk["crv"] == "Ed25519" and "d" not in jwk
        assert jwk["kid"] == thumbprint(jwk["x"])
        raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
        keys[jwk["kid"]] = Ed25519PublicKey.from_public_bytes(raw)
    return keys


def run(webcanon_bin, *args: object) -> subprocess.CompletedProcess:
    return subprocess.run([webcanon_bin, *map(str, args)], capture_output=True, text=True, timeout=60)


DIRECTORY_URL = f"{AGENT_URL}/.well-known/http-message-signatures-directory"


# The dictionary form is the current draft's and the default
# (draft-ietf-webbotauth-httpsig-protocol §5.2.1: `sig1="<directory URL>"`,
# covered as `"signature-agent";key="sig1"`); the legacy bare string is an option.
@pytest.mark.parametrize("form", ["dictionary", "legacy"])
def test_every_kind_of_request_is_signed_and_verified_independently(webcanon_bin, tmp_path, origins, form):
    a, b = origins
    old, new = tmp_path / "old.pem", tmp_path / "new.pem"
    for key in (old, new):
        made = run(webcanon_bin, "keys", "generate", "--out", key)
        assert made.returncode == 0, made.stderr
        assert (key.stat().st_mode & 0o777) == 0o600
        assert "PRIVATE KEY" not in made.stdout + made.stderr
    # Rotation: both keys published, the new one signs.
    listed = run(webcanon_bin, "keys", "directory", "--key", old, "--key", new)
    assert listed.returncode == 0, listed.stderr
    assert "application/http-message-signatures-directory+json" in listed.stderr
    keys = public_keys(json.loads(listed.stdout))
    assert len(keys) == 2
    new_kid = run(webcanon_bin, "keys", "directory", "--key", new)
    new_kid = json.loads(new_kid.stdout)["keys"][0]["kid"]

    sign = ["--allow-private", "127.0.0.1", "--no-cache", "--sign-key", new, "--signature-agent", AGENT_URL]
    if form == "legacy":
        sign += ["--signature-agent-form", "legacy"]
    covered_agent = '"signature-agent";key="sig1"' if form == "dictionary" else "signature-agent"
    fetched = run(webcanon_bin, "fetch", *sign, "--json", f"{a.origin}/start")
    assert fetched.returncode == 0, fetched.stderr
    listed_urls = run(webcanon_bin, "sitemap", *sign, f"{a.origin}/")
    assert listed_urls.returncode == 0, listed_urls.stderr
    assert f"{a.origin}/start" in listed_urls.stdout

    seen = {(origin.port, path) for origin in (a, b) for path, _ in origin.log}
    for expected in [
        (a.port, "/robots.txt"),
        (a.port, "/start"),  # the redirect hop's first request
        (a.port, "/llms.txt"),  # the llms.txt covering the URL asked for
        (a.port, "/sitemap.xml"),
        (b.port, "/robots.txt"),  # the other origin's robots.txt
        (b.port, "/page"),  # the hop to the other origin
        (b.port, "/page.md"),  # the Markdown alternative
    ]:
        assert expected in seen, f"{expected} not requested; saw {sorted(seen)}"

    verifier = HTTPMessageVerifier(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys=keys, private_keys={}),
    )
    nonces = set()
    for origin in (a, b):
        for path, headers in origin.log:
            message = types.SimpleNamespace(method="GET", url=f"http://{headers['host']}{path}", headers=headers)
            results = verifier.verify(
                message,
                expect_tag="web-bot-auth",
                require_components=("@authority", covered_agent),
                max_age=datetime.timedelta(minutes=5),
            )
            (result,) = results
            params = result.parameters
            if form == "legacy":
                assert headers["signature-agent"] == f'"{AGENT_URL}"'
            else:
                assert headers["signature-agent"] == f'sig1="{DIRECTORY_URL}"'
            assert params["keyid"] == new_kid and params["alg"] == "ed25519"
            assert 0 < params["expires"] - params["created"] <= 300
            assert headers["host"] == f"127.0.0.1:{origin.port}", "each hop signs its own authority"
            nonces.add(params["nonce"])
            # The same signature presented to the other origin does not verify.
            other = b if origin is a else a
            moved = types.SimpleNamespace(method="GET", url=f"http://127.0.0.1:{other.port}{path}", headers=headers)
            with pytest.raises(InvalidSignature):
                verifier.verify(moved, expect_tag="web-bot-auth")
    total = len(a.log) + len(b.log)
    assert len(nonces) == total, "every request has a nonce of its own"


def test_verify_request_says_why_a_signature_fails(webcanon_bin, tmp_path, origins):
    a, _ = origins
    key, other = tmp_path / "agent.pem", tmp_path / "other.pem"
    for path in (key, other):
        assert run(webcanon_bin, "keys", "generate", "--out", path).returncode == 0
    directory = tmp_path / "directory.json"
    directory.write_text(run(webcanon_bin, "keys", "directory", "--key", key).stdout)
    a.route("/page", 200, "plain text page")

    def capture(sign_key, form="legacy") -> dict[str, str]:
        a.log.clear()
        done = run(webcanon_bin, "fetch", "--allow-private", "127.0.0.1", "--no-cache", "--sign-key", sign_key,
                   "--signature-agent", AGENT_URL, "--signature-agent-form", form, f"{a.origin}/page")
        assert done.returncode == 0, done.stderr
        return dict(next(h for p, h in a.log if p == "/page"))

    def head(headers: dict[str, str]) -> str:
        lines = ["GET /page HTTP/1.1"] + [f"{k}: {v}" for k, v in headers.items()]
        return "\n".join(lines) + "\n\n"

    good = capture(key)
    created = int(good["signature-input"].split("created=")[1].split(";")[0])
    tampered = dict(good, host="127.0.0.1:1")
    uncovered = dict(good)
    uncovered["signature-input"] = good["signature-input"].replace(' "signature-agent"', "")
    cases = [
        (head(good), [], 0, ["valid: signed by https://bot.example"]),
        (head(good) + head(good), [], 1, ["request 1: valid", "request 2: invalid (replayed_nonce)"]),
        (head(good), ["--at", created + 3600], 1, ["invalid (expired)"]),
        (head(capture(other)), [], 1, ["invalid (unknown_key)"]),
        (head(tampered), [], 1, ["invalid (bad_signature)"]),
        (head(uncovered), [], 1, ["invalid (missing_component)", "signature-agent"]),
        (head({k: v for k, v in good.items() if not k.startswith("signature")}), [], 1, ["invalid (unsigned)"]),
    ]
    for text, extra, status, expected in cases:
        done = subprocess.run([webcanon_bin, "verify-request", "--directory", directory, *map(str, extra), "-"],
                              input=text, capture_output=True, text=True, timeout=30)
        assert done.returncode == status, (expected, done.stdout, done.stderr)
        for piece in expected:
            assert piece in done.stdout, (piece, done.stdout)
    # The dictionary form (the default): verified, and named in text and JSON.
    dictionary = capture(key, "dictionary")
    moved_member = dict(dictionary, **{"signature-agent": dictionary["signature-agent"].replace("sig1=", "sig2=")})
    uncovered_member = dict(dictionary)
    uncovered_member["signature-input"] = dictionary["signature-input"].replace(';key="sig1"', "")
    dictionary_cases = [
        (head(dictionary), 0, [f"valid: signed by {DIRECTORY_URL}", "(Signature-Agent: dictionary form)"]),
        (head(good), 0, ["valid: signed by https://bot.example", "(Signature-Agent: legacy form)"]),
        (head(moved_member), 1, ["invalid (malformed)", "no member `sig1`"]),
        (head(uncovered_member), 1, ["invalid (missing_component)", "signature-agent"]),
    ]
    for text, status, expected in dictionary_cases:
        done = subprocess.run([webcanon_bin, "verify-request", "--directory", directory, "-"],
                              input=text, capture_output=True, text=True, timeout=30)
        assert done.returncode == status, (expected, done.stdout, done.stderr)
        for piece in expected:
            assert piece in done.stdout, (piece, done.stdout)
    as_json = subprocess.run([webcanon_bin, "verify-request", "--json", "--directory", directory, "-"],
                             input=head(dictionary), capture_output=True, text=True, timeout=30)
    (line,) = [json.loads(x) for x in as_json.stdout.splitlines()]
    assert line["valid"] is True and line["signature_agent_form"] == "dictionary", line
    assert line["agent"] == DIRECTORY_URL, line

    # What the independent verifier says of the same cases.
    keys = public_keys(json.loads(directory.read_text()))
    verifier = HTTPMessageVerifier(signature_algorithm=algorithms.ED25519,
                                   key_resolver=MappingKeyResolver(public_keys=keys, private_keys={}))
    url = f"{a.origin}/page"
    verifier.verify(types.SimpleNamespace(method="GET", url=url, headers=good), expect_tag="web-bot-auth")
    (result,) = verifier.verify(types.SimpleNamespace(method="GET", url=url, headers=dictionary),
                                expect_tag="web-bot-auth",
                                require_components=("@authority", '"signature-agent";key="sig1"'))
    assert result.label == "sig1"
    with pytest.raises(InvalidSignature):
        verifier.verify(types.SimpleNamespace(method="GET", url="http://127.0.0.1:1/page", headers=tampered),
                        expect_tag="web-bot-auth")
