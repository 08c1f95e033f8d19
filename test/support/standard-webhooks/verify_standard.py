"""Verifies a delivery with the official Standard Webhooks library for Python (PyPI `standardwebhooks`).

Usage: WEBHOOK_SECRET=<whsec_...> python verify_standard.py <body file> '<headers as JSON>'
prints valid (exit 0) or invalid (exit 1).
"""

import json
import os
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

with open(sys.argv[1], "rb") as f:
    body = f.read()
try:
    Webhook(os.environ["WEBHOOK_SECRET"]).verify(body, json.loads(sys.argv[2]))
except WebhookVerificationError:
    print("invalid")
    sys.exit(1)
print("valid")
