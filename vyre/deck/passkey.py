"""Presence in the Deck: a WebAuthn passkey, registered on localhost, asked for each action
that loosens what Vyre enforces (accepting, retiring or relaxing a lesson).

What must stay true:
- A signed-in browser is not presence: a model with a shell could sign in too (it runs as the
  user). Registering a passkey needs a one-time code that only `vyre deck passkey` prints, and
  that command, like corrections, runs only at a real terminal outside Claude Code.
- Each presence action gets its own challenge, bound to the browser's session and to what is
  being done ("accept:L7"), used once, valid for five minutes; the assertion must be made
  with user verification by a passkey registered here, and its signature counter must move.
- The relying party is `localhost` (WebAuthn does not accept an IP address), so the Deck's
  URLs use `http://localhost:PORT`, which browsers treat as a secure context.
- Passkeys are rows the user made (`deck_passkeys` in the ledger): public keys only.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass

import webauthn
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from vyre.errors import OwnerOnly
from vyre.ledger import Ledger

RP_ID = "localhost"
RP_NAME = "Vyre Deck"
CODE_S = 600  # a registration code from the terminal is good for ten minutes
CHALLENGE_S = 300


@dataclass
class _Pending:
    challenge: bytes
    until: float


class Passkeys:
    def __init__(self, ledger: Ledger, port: int):
        self.ledger = ledger
        self.origin = f"http://localhost:{port}"
        self._codes: dict[str, float] = {}
        self._pending: dict[tuple[str, str], _Pending] = {}
        self._lock = threading.Lock()

    # -- registration -------------------------------------------------------------------

    def registration_code(self) -> str:
        """A one-time code that lets a signed-in browser register a passkey (printed by
        `vyre deck passkey`, which checks for a real terminal first)."""
        code = secrets.token_urlsafe(16)
        with self._lock:
            self._codes[code] = time.time() + CODE_S
        return code

    def registered(self) -> int:
        return self.ledger.db.execute("SELECT count(*) FROM deck_passkeys").fetchone()[0]

    def registration_options(self, session: str, code: str) -> str:
        with self._lock:
            until = self._codes.get(code)
            if until is None or until < time.time():
                raise OwnerOnly("this passkey code is unknown or expired: run `vyre deck passkey`")
        existing = [
            PublicKeyCredentialDescriptor(id=row[0])
            for row in self.ledger.db.execute("SELECT credential FROM deck_passkeys")
        ]
        options = webauthn.generate_registration_options(
            rp_id=RP_ID,
            rp_name=RP_NAME,
            user_name="you",
            user_id=b"vyre-owner",
            exclude_credentials=existing,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.PREFERRED,
                user_verification=UserVerificationRequirement.REQUIRED,
            ),
        )
        self._hold(session, f"register:{code}", options.challenge)
        return webauthn.options_to_json(options)

    def register(self, session: str, code: str, credential: dict, *, when: str) -> None:
        challenge = self._take(session, f"register:{code}")
        with self._lock:
            if self._codes.pop(code, None) is None:
                raise OwnerOnly("this passkey code was already used: run `vyre deck passkey`")
        try:
            verified = webauthn.verify_registration_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=RP_ID,
                expected_origin=self.origin,
                require_user_verification=True,
            )
        except Exception as exc:  # the library raises its own errors for every bad field
            raise OwnerOnly(f"the passkey was not registered: {exc}") from exc
        with self.ledger.transaction() as db:
            db.execute(
                "INSERT INTO deck_passkeys (credential, public_key, sign_count, created) "
                "VALUES (?, ?, ?, ?)",
                (
                    verified.credential_id,
                    verified.credential_public_key,
                    verified.sign_count,
                    when,
                ),
            )

    # -- presence for one action ----------------------------------------------------------

    def challenge(self, session: str, purpose: str) -> str:
        rows = self.ledger.db.execute("SELECT credential FROM deck_passkeys").fetchall()
        if not rows:
            raise OwnerOnly("no passkey yet: run `vyre deck passkey` at a terminal to add one")
        options = webauthn.generate_authentication_options(
            rp_id=RP_ID,
            allow_credentials=[PublicKeyCredentialDescriptor(id=r[0]) for r in rows],
            user_verification=UserVerificationRequirement.REQUIRED,
        )
        self._hold(session, purpose, options.challenge)
        return webauthn.options_to_json(options)

    def verify(self, session: str, purpose: str, credential: dict) -> None:
        """Raises OwnerOnly unless this is a fresh, verified assertion for `purpose`."""
        challenge = self._take(session, purpose)
        raw_id = str(credential.get("rawId") or credential.get("id") or "")
        row = self.ledger.db.execute(
            "SELECT credential, public_key, sign_count FROM deck_passkeys",
        ).fetchall()
        match = next((r for r in row if bytes_to_base64url(r[0]) == raw_id), None)
        if match is None:
            raise OwnerOnly("that passkey is not registered with this Deck")
        try:
            verified = webauthn.verify_authentication_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=RP_ID,
                expected_origin=self.origin,
                credential_public_key=match[1],
                credential_current_sign_count=match[2],
                require_user_verification=True,
            )
        except Exception as exc:
            raise OwnerOnly(f"the passkey did not confirm it is you: {exc}") from exc
        with self.ledger.transaction() as db:
            db.execute(
                "UPDATE deck_passkeys SET sign_count = ? WHERE credential = ?",
                (verified.new_sign_count, match[0]),
            )

    # -- challenges -----------------------------------------------------------------------

    def _hold(self, session: str, purpose: str, challenge: bytes) -> None:
        with self._lock:
            now = time.time()
            self._pending = {k: p for k, p in self._pending.items() if p.until > now}
            self._pending[(session, purpose)] = _Pending(challenge, now + CHALLENGE_S)

    def _take(self, session: str, purpose: str) -> bytes:
        with self._lock:
            pending = self._pending.pop((session, purpose), None)
        if pending is None or pending.until < time.time():
            raise OwnerOnly("that confirmation expired: try again")
        return pending.challenge


def parse_credential(body: bytes) -> dict:
    """The browser's PublicKeyCredential as JSON (what deck.js sends)."""
    try:
        value = json.loads(body)
    except ValueError as exc:
        raise OwnerOnly("the passkey answer was not JSON") from exc
    if not isinstance(value, dict):
        raise OwnerOnly("the passkey answer was not an object")
    return value
