"""Verify Keyward API keys from Python, through the reference server's verification endpoint.

Standard library only (Python 3.8+). Copy this file into your service, or run it:

    SERVICE_BASE_URL=http://127.0.0.1:3000 SERVICE_DEVELOPER_KEY=ak_... \\
        python3 keyward_verify.py ak_THE_KEY_TO_VERIFY [--project-id P] [--permission NAME] [--ip ADDRESS]

It prints the answer as JSON, and exits 0 when the key is valid, 1 when it is refused, 2 when the
verification could not be made (no credential, the server down, ...). With KEYWARD_VERIFY_TOKEN set
(a service token the server's operator configured) it sends that instead of the developer key.

    from keyward_verify import verify
    answer = verify("http://127.0.0.1:3000", presented_key, developer_key=os.environ["SERVICE_DEVELOPER_KEY"],
                    ip=client_address)
    if not answer["valid"]:
        refuse(answer["code"])  # e.g. "key_invalid", "ip_not_allowed", "permission_denied"
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request

__all__ = ["KeywardError", "verify"]


class KeywardError(Exception):
    """The verification could not be made: `status` 0 for no answer, else the server's error
    answer, whose `type` is the first error type of its `detail` (e.g. "key_missing")."""

    def __init__(self, status, type_, message, detail=None):
        super().__init__(message)
        self.status = status
        self.type = type_
        self.detail = detail or []


def verify(
    base_url,
    key,
    *,
    developer_key=None,
    service_token=None,
    project_id=None,
    permissions=None,
    cost=None,
    ip=None,
    timeout=10.0,
):
    """Asks the server whether `key` passes the checks of an API key's guard.

    Returns the answer as a dict: "valid", "code" (the refusal's error type, None when valid),
    "key_id", "owner", "permissions", "metadata", "remaining", "expires_at", "ratelimit".
    A refused key is an answer, not an exception; KeywardError means no verdict was made.
    Authenticates with `developer_key` (keys of that developer's projects) or `service_token`.
    """
    if (developer_key is None) == (service_token is None):
        raise ValueError("give developer_key or service_token, one of them")
    body = {"key": key}
    for name, value in (("project_id", project_id), ("permissions", permissions), ("cost", cost), ("ip", ip)):
        if value is not None:
            body[name] = list(value) if name == "permissions" else value
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if developer_key is not None:
        headers["X-Developer-Key"] = developer_key
    else:
        headers["Authorization"] = "Bearer " + service_token
    request = urllib.request.Request(
        base_url.rstrip("/") + "/api/v1/keys/verify",
        data=json.dumps(body).encode("utf-8"),
        headers=headers,
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        try:
            detail = json.loads(error.read().decode("utf-8")).get("detail", [])
        except (ValueError, AttributeError):
            detail = []
        first = detail[0] if detail and isinstance(detail[0], dict) else {}
        raise KeywardError(
            error.code, first.get("type"), first.get("msg") or "HTTP %d" % error.code, detail
        ) from None
    except (urllib.error.URLError, OSError) as error:
        raise KeywardError(0, None, "no answer from %s: %s" % (base_url, error)) from None


def main(argv=None):
    parser = argparse.ArgumentParser(description="Verify a Keyward API key.")
    parser.add_argument("key", help="the API key to verify")
    parser.add_argument("--project-id")
    parser.add_argument("--permission", action="append", dest="permissions")
    parser.add_argument("--ip", help="the address of the client that presented the key")
    args = parser.parse_args(argv)
    base_url = os.environ.get("SERVICE_BASE_URL", "http://127.0.0.1:3000")
    token = os.environ.get("KEYWARD_VERIFY_TOKEN") or None
    developer_key = None if token else os.environ.get("SERVICE_DEVELOPER_KEY")
    if not token and not developer_key:
        print("Set SERVICE_DEVELOPER_KEY (or KEYWARD_VERIFY_TOKEN).", file=sys.stderr)
        return 2
    try:
        answer = verify(
            base_url,
            args.key,
            developer_key=developer_key,
            service_token=token,
            project_id=args.project_id,
            permissions=args.permissions,
            ip=args.ip,
        )
    except KeywardError as error:
        print("verification failed: %s (%s)" % (error, error.type or error.status), file=sys.stderr)
        return 2
    print(json.dumps(answer))
    return 0 if answer.get("valid") else 1


if __name__ == "__main__":
    sys.exit(main())
