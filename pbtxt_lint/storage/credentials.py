"""The credentials Triton would use for a repository URL, as client arguments.

Triton's `FileSystemManager::LoadCredentials` (core, src/filesystem/api.cc) reads
`TRITON_CLOUD_CREDENTIAL_PATH` when it is set: a JSON file
`{"s3": {<path prefix>: {...}}, "gs": {<prefix>: "<key file>"}, "as": {<prefix>: {...}}}`,
whose entry with the longest prefix of the path applies (and no entry is an error,
"Cannot match credential for path"). Otherwise each cloud reads its environment:

- S3 (s3.h, `S3Credential`): AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
  AWS_DEFAULT_REGION, else the profile AWS_PROFILE (else "default") of the AWS SDK's
  files, else the SDK's default chain; file keys `key_id`, `secret_key`,
  `session_token`, `region`, `profile`.
- GCS (gcs.h, `GCSCredential`): the JSON key file GOOGLE_APPLICATION_CREDENTIALS (user
  or service account), else the metadata server, else anonymous; the file's value is
  the key file's path.
- Azure (as.h, `ASCredential`): AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY,
  AZURE_STORAGE_AUTH_TYPE (`key`, `managed_identity`, `default`),
  AZURE_STORAGE_CLIENT_ID; file keys `account_str`, `account_key`, `auth_type`,
  `client_id`.

Two test-only endpoints are honoured the way the clouds' own SDKs honour them:
STORAGE_EMULATOR_HOST (GCS emulators) and AZURE_STORAGE_CONNECTION_STRING (Azurite).
Secrets are kept only to hand to the client and to blank out of any message.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from pbtxt_lint.storage.urls import Location

CREDENTIAL_PATH = "TRITON_CLOUD_CREDENTIAL_PATH"


class CredentialError(Exception):
    """The credential file cannot be used; the message says why (never a secret)."""


@dataclass
class Credentials:
    """Keyword arguments for the cloud's fsspec file system, and where they came from."""

    options: dict[str, Any] = field(default_factory=dict)
    source: str = "environment"
    secrets: list[str] = field(default_factory=list)


def for_url(location: Location, url: str) -> Credentials:
    """The credentials Triton would pick for `url`."""
    path = os.environ.get(CREDENTIAL_PATH)
    if path:
        entry, name = _from_file(path, location.scheme, url)
        return _build(location, entry, f"{CREDENTIAL_PATH} entry '{name}'")
    return _build(location, None, "environment")


def _from_file(path: str, scheme: str, url: str) -> tuple[Any, str]:
    try:
        with open(path, "rb") as handle:
            document = json.loads(handle.read(1 << 20))
    except OSError as error:
        raise CredentialError(
            f"{CREDENTIAL_PATH}={path}: cannot read it: {error.strerror or error}"
        ) from None
    except ValueError:
        raise CredentialError(f"{CREDENTIAL_PATH}={path}: not valid JSON") from None
    entries = document.get(scheme) if isinstance(document, dict) else None
    if not isinstance(entries, dict):
        entries = {}
    # api.cc, GetLongestMatchingNameIndex: the longest name that starts the path.
    for name in sorted(entries, key=len, reverse=True):
        if url.startswith(name):
            return entries[name], name
    raise CredentialError(
        f"{CREDENTIAL_PATH}={path} has no '{scheme}' entry whose name starts {url}; "
        'Triton fails the same way ("Cannot match credential for path")'
    )


def _text(entry: Any, key: str) -> str:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value if isinstance(value, str) else ""


def _build(location: Location, entry: Any, source: str) -> Credentials:
    if location.scheme == "s3":
        return _s3(location, entry, source)
    if location.scheme == "gs":
        return _gcs(entry, source)
    return _azure(location, entry, source)


def _s3(location: Location, entry: Any, source: str) -> Credentials:
    env = os.environ.get
    if entry is None:
        key_id, secret = env("AWS_ACCESS_KEY_ID", ""), env("AWS_SECRET_ACCESS_KEY", "")
        token, region = env("AWS_SESSION_TOKEN", ""), env("AWS_DEFAULT_REGION", "")
        profile = env("AWS_PROFILE", "")
    else:
        key_id, secret = _text(entry, "key_id"), _text(entry, "secret_key")
        token, region = _text(entry, "session_token"), _text(entry, "region")
        profile = _text(entry, "profile")
    options: dict[str, Any] = {}
    client: dict[str, Any] = {}
    secrets = []
    if key_id and secret:
        options.update(key=key_id, secret=secret)
        secrets += [key_id, secret]
        if token:
            options["token"] = token
            secrets.append(token)
        if region:
            client["region_name"] = region
    elif profile:
        options["profile"] = profile
    if location.endpoint:
        client["endpoint_url"] = location.endpoint
    if client:
        options["client_kwargs"] = client
    return Credentials(options, source, secrets)


def _gcs(entry: Any, source: str) -> Credentials:
    if entry is None:
        key_file = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS", "")
    else:
        key_file = entry if isinstance(entry, str) else ""
    options: dict[str, Any] = {}
    emulator = os.environ.get("STORAGE_EMULATOR_HOST", "")
    if emulator:
        options.update(endpoint_url=emulator, token="anon")
    elif key_file:
        options["token"] = key_file
    return Credentials(options, source, [])


def _azure(location: Location, entry: Any, source: str) -> Credentials:
    env = os.environ.get
    if entry is None:
        account = location.account or ""
        key, auth = env("AZURE_STORAGE_KEY", ""), env("AZURE_STORAGE_AUTH_TYPE", "")
        client_id = env("AZURE_STORAGE_CLIENT_ID", "")
    else:
        account = _text(entry, "account_str") or location.account or ""
        key, auth = _text(entry, "account_key"), _text(entry, "auth_type")
        client_id = _text(entry, "client_id")
    options: dict[str, Any] = {"account_name": account}
    secrets = []
    connection = env("AZURE_STORAGE_CONNECTION_STRING", "")
    if connection:
        options = {"connection_string": connection}
        secrets += [
            value
            for name, _, value in (part.partition("=") for part in connection.split(";"))
            if name in ("AccountKey", "SharedAccessSignature")
        ]
    elif auth in ("managed_identity", "default"):
        # Deferred: azure-identity loads only for these modes.
        from azure.identity import DefaultAzureCredential, ManagedIdentityCredential

        options["credential"] = (
            ManagedIdentityCredential(client_id=client_id or None)
            if auth == "managed_identity"
            else DefaultAzureCredential()
        )
    elif key:
        options["account_key"] = key
        secrets.append(key)
    else:
        options["anon"] = True
    return Credentials(options, source, [s for s in secrets if len(s) >= 4])
