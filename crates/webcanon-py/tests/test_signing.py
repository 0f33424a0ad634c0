"""`webcanon.Client(sign_key=..., signature_agent=...)`: every request the
wheel makes is signed (Web Bot Auth) with a key written by `cryptography`
(PKCS#8 PEM, as OpenSSL writes it), and the `http-message-signatures`
package verifies each one; a key without an agent URL is a usage error."""

from __future__ import annotations

import base64
import hashlib
import json
import types

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from http_message_signatures import HTTPMessageVerifier, algorithms
from http_message_signatures.resolvers import MappingKeyResolver

import webcanon

from loopback import LoopbackServer


@pytest.fixture
def recorder(site) -> LoopbackServer:
    """A loopback server that answers robots.txt and one page, and keeps every request's headers."""
    site.route("/robots.txt", 200, "User-agent: *\nAllow: /\n")
    site.route("/page", 200, "<html><body><main><p>A signed visit, written down.</p></main></body></html>", "text/html")
    return site


# The dictionary form is the default (draft-ietf-webbotauth-httpsig-protocol
# §5.2.1); `signature_agent_form="legacy"` sends the bare string.
@pytest.mark.parametrize("form", ["dictionary", "legacy"])
@pytest.mark.asyncio
async def test_the_wheel_signs_every_request(recorder, client, tmp_path, form):
    private = Ed25519PrivateKey.generate()
    key_file = tmp_path / "agent.pem"
    key_file.write_bytes(
        private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    x = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    canonical = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": x}, separators=(",", ":"))
    kid = base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()

    signing = client(
        alternatives=False,
        sign_key=key_file,
        signature_agent="https://bot.example",
        **({"signature_agent_form": "legacy"} if form == "legacy" else {}),
    )
    covered_agent = '"signature-agent";key="sig1"' if form == "dictionary" else "signature-agent"
    result = await signing.fetch(recorder.origin + "/page")
    assert "A signed visit" in result["content"]
    assert [path for path, _ in recorder.log] == ["/robots.txt", "/page"]
    verifier = HTTPMessageVerifier(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys={kid: private.public_key()}, private_keys={}),
    )
    for path, headers in recorder.log:
        message = types.SimpleNamespace(method="GET", url=recorder.origin + path, headers=headers)
        (verified,) = verifier.verify(
            message, expect_tag="web-bot-auth", require_components=("@authority", covered_agent)
        )
        assert verified.parameters["keyid"] == kid
        if form == "legacy":
            assert headers["signature-agent"] == '"https://bot.example"'
        else:
            directory = "https://bot.example/.well-known/http-message-signatures-directory"
            assert headers["signature-agent"] == f'sig1="{directory}"'


def test_a_key_needs_an_agent_url_and_a_key(tmp_path):
    with pytest.raises(webcanon.WebcanonError) as raised:
        webcanon.Client("TestBot", sign_key=tmp_path / "agent.pem")
    assert "sign_key needs signature_agent" in str(raised.value)
    (tmp_path / "agent.pem").write_text("not a key")
    with pytest.raises(webcanon.WebcanonError) as raised:
        webcanon.Client("TestBot", sign_key=tmp_path / "agent.pem", signature_agent="https://bot.example")
    assert "holds no Ed25519 private key" in str(raised.value)
    with pytest.raises(webcanon.WebcanonError) as raised:
        webcanon.Client("TestBot", sign_key=tmp_path / "agent.pem", signature_agent="https://bot.example",
                        signature_agent_form="sf-string")
    assert "signature_agent_form: `sf-string` is not a Signature-Agent form" in str(raised.value)
