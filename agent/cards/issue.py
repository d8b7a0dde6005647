"""Issuing cards: the context a card is issued in, and the one way a card is stored.

:class:`CardIssuer` holds what a card is proposed from (the user's question, the facts and
the stored items read on the way, the actor and session) and issues cards for prepared
args: the continuation (pending until a succeeded receipt for the card's action exists) and
the sealed card that names it, stored in one round trip (with the card limit's count, for a
message turn's card), the history row queued in ``card_rows`` and, for
:meth:`CardIssuer.issue_audited`, the ``card.issued`` audit row queued in ``audit_rows``.
Nothing here writes the database: the caller records the queued rows in its transaction
(``lifecycle.record_issued``, :meth:`CardIssuer.flush_audit`).

A message turn (``agent.conversation.decisions.Turn``) is a card issuer; so is the context of a
card derived
from an earlier one (``agent.cards.derived``: reissue, edit, undo, choice).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.utils import timezone

from agent import ratelimit
from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.continuations import store as continuation_store
from agent.control import SealedCreate, confirmation_store
from agent.guard.provenance import beyond_the_message, merge, provenance, sources_of
from agent.models import ActionCard, AgentSession
from agent.planners.base import Fact
from agent.policy import PolicyResult
from agent.tools import ToolContext
from lightnote.audit import audit_entry, audit_events
from lightnote.controlstore import limits, store
from lightnote.controlstore import scripts as store_scripts
from lightnote.impersonation.context import ActorContext
from lightnote.models import AuditEvent
from lightnote.ops import metrics, tracing

logger = logging.getLogger(__name__)


def request_id(request: Any) -> str:
    """Return the proxy's ``X-Request-ID`` (bounded) or a fresh id, bound into each card."""
    django_request = getattr(request, "_request", request)
    given = str(getattr(django_request, "META", {}).get("HTTP_X_REQUEST_ID", ""))[:64]
    return given or uuid.uuid4().hex


def prepared_fields(prepared: PolicyResult) -> dict[str, Any]:
    """Return the card fields of a prepared write: tool, capability, risk, args, preview."""
    return {
        "tool": prepared.tool.name,
        "capability": prepared.capability.id,
        "risk": prepared.capability.risk or "low",
        "args": prepared.args,
        "preview": prepared.preview or {},
    }


class CardIssuer:
    """What cards are issued from (question, facts, reads), and the cards issued so far."""

    def __init__(
        self,
        *,
        request: Any,
        actor: ActorContext,
        session: AgentSession,
        text: str,
        locale: str,
        earlier_reads: list[dict[str, str]] | None = None,
    ):
        self.request = request
        # Stored content the model saw on earlier turns still in its history.
        self.earlier_reads = earlier_reads or []
        self.text = text
        self.actor = actor
        self.session = session
        self.locale = locale
        self.context = ToolContext.from_actor_context(
            actor,
            session_id=str(session.id),
            locale=locale,
            now=timezone.now(),
            request_id=request_id(request),
        )
        self.facts: list[Fact] = []
        self.cards: list[dict[str, Any]] = []
        self.card_rows: list[ActionCard] = []
        # The ``card.issued`` rows, written by the caller's transaction (``flush_audit``).
        self.audit_rows: list[AuditEvent] = []

    def reads(self) -> list[dict[str, str]]:
        """Return the stored items the model read on this turn (note bodies, todo lists)."""
        return merge(sources_of(fact.data) for fact in self.facts if fact.status == "succeeded")

    def issue(self, prepared: PolicyResult, *, limited: bool = False) -> dict[str, Any]:
        """Store the card and its pending continuation; add the card to the turn; return it.

        ``limited``: count the card against the user's card limit first (see
        :meth:`issue_prepared`).
        """
        return self.issue_audited(**prepared_fields(prepared), limited=limited)

    def issue_audited(
        self,
        *,
        tool: str,
        capability: str,
        risk: str,
        args: dict[str, Any],
        preview: dict[str, Any],
        limited: bool = False,
    ) -> dict[str, Any]:
        """:meth:`issue_prepared`, with its ``card.issued`` audit row queued in ``audit_rows``:
        the caller writes it in the transaction that writes the card's history row
        (:meth:`flush_audit`)."""
        card = self.issue_prepared(
            tool=tool, capability=capability, risk=risk, args=args, preview=preview, limited=limited
        )
        entry = audit_entry(
            "card.issued",
            actor=self.actor.actor,
            subject=self.actor.subject,
            session_id=self.session.id,
            capability=card["capability"],
            tool=card["tool"],
            action_id=card["card_id"],
        )
        self.audit_rows.append(entry)
        return card

    def flush_audit(self) -> None:
        """Write the queued audit rows (one INSERT), taking them off the queue. Needs: the
        caller's transaction."""
        rows, self.audit_rows = self.audit_rows, []
        audit_events(rows)

    @tracing.span("card.issue")
    def issue_prepared(
        self,
        *,
        tool: str,
        capability: str,
        risk: str,
        args: dict[str, Any],
        preview: dict[str, Any],
        limited: bool = False,
    ) -> dict[str, Any]:
        """Issue a card (and its pending continuation) for prepared args; return the API card.

        Both records are stored in one round trip (one each on Redis Cluster). The card's
        history row is queued in ``card_rows`` for the caller's transaction.

        ``limited``: the card counts against the user's card limit, exactly as
        ``ratelimit.limit_new_card`` before it would: one unit per card, counted before the
        sizes are checked. Where the limiter shares the records' connection, its count
        travels first in the records' round trip; over the limit the records just stored
        are deleted (their tokens never left this call, so nothing was confirmable) and the
        refusal is audited and raised (429 ``RATE_LIMITED``). Elsewhere it is counted alone
        first. The store unreachable: 503 ``CONFIRMATION_STORE_UNAVAILABLE``, before any
        card is shown.
        """
        unit = ratelimit.new_card_unit(user_id=self.actor.actor.pk) if limited else None
        try:
            continuation, prepared = self._prepare_records(
                tool=tool, capability=capability, risk=risk, args=args, preview=preview
            )
        except Exception:
            if unit is not None:  # counted (or refused) before the sizes, as always
                limits.take_now(unit)
            raise
        replies = self._store_records(unit, continuation, prepared)
        continuation.sealed.fields(replies[0])  # stored new (a token collision raises)
        issued = prepared.issued(replies[1])
        expires_at = issued.card.expires_at
        if expires_at is None:  # pragma: no cover - a card just issued always has one
            raise RuntimeError("an issued card has no expiry")
        self.card_rows.append(
            lifecycle.card_row(
                issued,
                session=self.session,
                owner_id=self.actor.subject.pk,
                actor_id=self.actor.actor.pk,
                continuation_digest=continuation.digest,
            )
        )
        card = {
            "card_id": issued.card.id,
            "token": issued.token,
            "continuation_token": continuation.token,
            "capability": capability,
            "tool": tool,
            "risk": risk,
            "state": "ready",
            "expires_at": expires_at.astimezone(self.context.zone).isoformat(),
            "args": args,
            "preview": preview,
            # A card that carries what the user did not say, after the model read stored
            # content, says so.
            "provenance": (
                provenance(merge([self.reads(), self.earlier_reads]), self.locale)
                if beyond_the_message(args=args, preview=preview, message=self.text)
                else None
            ),
        }
        self.cards.append(card)
        metrics.card_issued(capability=capability)
        tracing.annotate(capability=capability, card_id=issued.card.id)
        return card

    def _prepare_records(
        self,
        *,
        tool: str,
        capability: str,
        risk: str,
        args: dict[str, Any],
        preview: dict[str, Any],
    ) -> tuple[Any, cards.CardIssue]:
        """The continuation and the card, checked and sealed, not stored yet. The
        continuation comes first so the card can name it; it stays pending until a
        succeeded receipt for this card's action exists."""
        action_id = str(uuid.uuid4())
        continuation = continuation_store.continuation_prepare(
            action_id=action_id,
            owner_id=self.actor.subject.pk,
            session_id=str(self.session.id),
            snapshot={
                "question": self.text,
                "locale": self.locale,
                "time_zone": self.context.zone.key,
                "facts": [self._fact_dict(fact) for fact in self.facts],
            },
        )
        prepared = cards.card_prepare(
            card_id=action_id,
            owner_id=self.actor.subject.pk,
            session_id=str(self.session.id),
            subject_id=self.actor.subject.pk,
            actor_id=self.actor.actor.pk,
            tool=tool,
            capability=capability,
            risk=risk,
            args=args,
            preview=preview,
            admin_context_id=self.actor.admin_context_id,
            admin_mode=self.actor.admin_mode,
            request_id=self.context.request_id,
            continuation_digest=continuation.digest,
        )
        return continuation, prepared

    def _store_records(
        self, unit: limits.LimitTake | None, continuation: Any, prepared: cards.CardIssue
    ) -> list[Any]:
        """Store both records in one round trip, the card limit's unit first in it where the
        limiter shares the records' connection (elsewhere counted alone first); over the
        limit the records just stored are withdrawn and 429 raised."""
        calls = [continuation.sealed.create.call, prepared.sealed.create.call]
        with confirmation_store():
            riding = unit is not None and store_scripts.pipelines_scripts(unit.alias)
        if unit is not None:
            if riding:
                calls.insert(0, unit.call)
            else:
                limits.take_now(unit)
        with confirmation_store():
            replies = store_scripts.scripts_run(calls)
        if riding and unit is not None:
            retry_after = unit.retry_after(replies.pop(0))
            if retry_after is not None:
                self._withdraw(continuation.sealed, prepared.sealed)
                unit.refuse(retry_after)
        return list(replies)

    @staticmethod
    def _withdraw(*sealed: SealedCreate) -> None:
        """Delete records just stored for a card that is not issued after all (best effort:
        their tokens were never shown, and they expire anyway)."""
        try:
            store.records_delete([record.create.call.key for record in sealed])
        except store.StoreUnavailable:
            logger.warning("records of a refused card not deleted; they expire")

    @staticmethod
    def _fact_dict(fact: Fact) -> dict[str, Any]:
        return {"tool": fact.tool, "status": fact.status, "summary": fact.summary}
