"""A small program written against the client openapi-python-client generates from the served document.

scripts/test-api-tools.sh generates the package `audit_trail_client` beside this file, checks both with
`mypy --strict` and runs this against the gateway: python python_client_check.py <base URL> <key>.
"""

import datetime
import sys

from audit_trail_client import AuthenticatedClient
from audit_trail_client.api.events import export_events, get_event, list_events
from audit_trail_client.api.webhooks import list_webhooks
from audit_trail_client.models import (
    AuditEvent,
    EventList,
    ExportEnvelope,
    ExportFilters,
    ListEventsPhiInvolved,
    WebhookList,
)


def check(base_url: str, key: str) -> str:
    since = datetime.datetime(2025, 11, 1, tzinfo=datetime.timezone.utc)
    with AuthenticatedClient(base_url=base_url, token=key, raise_on_unexpected_status=True) as client:
        page = list_events.sync(client=client, limit=5, phi_involved=ListEventsPhiInvolved.TRUE, since=since)
        if not isinstance(page, EventList) or not page.events:
            raise SystemExit(f"list: {page!r}")
        first = page.events[0]
        event = get_event.sync(first.event_id, client=client)
        if not isinstance(event, AuditEvent) or event.event_id != first.event_id:
            raise SystemExit(f"lookup: {event!r}")
        exported = export_events.sync(client=client, body=ExportFilters(phi_involved=True, since=since))
        if not isinstance(exported, ExportEnvelope) or exported.count != len(exported.events):
            raise SystemExit(f"export: {exported!r}")
        webhooks = list_webhooks.sync(client=client)
        if not isinstance(webhooks, WebhookList):
            raise SystemExit(f"webhooks: {webhooks!r}")
        return f"{page.page.returned} events, {exported.count} exported, {len(webhooks.endpoints)} endpoints"


if __name__ == "__main__":
    print(f"python client: {check(sys.argv[1], sys.argv[2])}")
