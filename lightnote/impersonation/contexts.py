"""Admin read-only impersonation: a staff member views another user's data for 20 minutes.

While a context is active, authentication makes the subject ``request.user`` and the
default permission refuses every write (``ADMIN_READONLY``). Starting and ending a context
are the staff member's own acts, so this endpoint answers to the real actor and stays
usable (DELETE included) while a context is active.
"""

from __future__ import annotations

import uuid
import zoneinfo
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY, actor_context
from lightnote.models import AdminContext, User
from lightnote.rest.openapi import ADMIN_CONTEXT_PARAMETER, AUTHENTICATED_403, error_responses
from lightnote.rest.serializers import StrictSerializer, refuse_body_fields

CONTEXT_LIFETIME = timedelta(minutes=20)


# --- Services ---------------------------------------------------------------------------


@transaction.atomic
def admin_context_start(
    *, staff: User, subject_id: int, mode: str = AdminContext.Mode.READONLY, reason: str = ""
) -> AdminContext:
    """Open a read-only context of ``staff`` on the user ``subject_id`` and audit it (with
    the staff member's ``reason``, kept on the context)."""
    if not staff.is_staff:
        raise LightNoteError("ADMIN_ONLY", status=403)
    subject = User.objects.filter(pk=subject_id).first()
    if subject is None:
        raise LightNoteError("USER_NOT_FOUND", status=404)
    if subject.is_superuser and not staff.is_superuser:
        # A superuser's data (and admin) is beyond a staff member's own reach.
        raise LightNoteError("ADMIN_SUBJECT_FORBIDDEN", status=403)
    now = timezone.now()
    reason = " ".join(reason.split())[: AdminContext.REASON_MAX]
    context = AdminContext.objects.create(
        staff=staff,
        subject=subject,
        mode=mode,
        reason=reason,
        created_at=now,
        expires_at=now + CONTEXT_LIFETIME,
    )
    audit_event(
        "admin.context_started",
        actor=staff,
        subject=subject,
        details={
            "context_id": str(context.id),
            "mode": mode,
            "reason": reason,
            "expires_at": context.expires_at.isoformat(),
        },
    )
    return context


def browser_context_start(
    request: Any, *, staff: User, subject_id: int, reason: str = ""
) -> AdminContext:
    """Start a context and attach it to the browser session; one per session: a context
    already held there is ended first (by the new one's start, both audited)."""
    context = admin_context_start(staff=staff, subject_id=subject_id, reason=reason)
    previous = request.session.get(ADMIN_CONTEXT_SESSION_KEY)
    if previous:
        admin_context_end(staff=staff, context_id=previous)
    request.session[ADMIN_CONTEXT_SESSION_KEY] = str(context.id)
    return context


def browser_context_end(request: Any, *, staff: User) -> str | None:
    """End the context held by the browser session (if any) and forget it; return its id."""
    context_id = request.session.pop(ADMIN_CONTEXT_SESSION_KEY, None)
    if context_id:
        admin_context_end(staff=staff, context_id=context_id)
    return context_id


@transaction.atomic
def admin_context_end(*, staff: User, context_id: uuid.UUID | str) -> bool:
    """End the staff member's open context; return whether this call ended it.

    The end is a conditional UPDATE on ``ended_at IS NULL``: of two concurrent ends exactly
    one records the end and its audit event; the other (and any later one) is a no-op.
    """
    try:
        context = (
            AdminContext.objects.select_related("subject")
            .filter(id=context_id, staff=staff)
            .first()
        )
    except (ValidationError, ValueError):
        return False
    if context is None:
        return False
    now = timezone.now()
    ended = AdminContext.objects.filter(pk=context.pk, ended_at__isnull=True).update(ended_at=now)
    if ended == 0:
        return False
    audit_event(
        "admin.context_ended",
        actor=staff,
        subject=context.subject,
        details={"context_id": str(context.id), "mode": context.mode},
    )
    return True


def end_context_on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """``user_logged_out``: logging out ends the context the browser session held (audited),
    rather than leaving it open until it expires."""
    session = getattr(request, "session", None)
    context_id = session.get(ADMIN_CONTEXT_SESSION_KEY) if session is not None else None
    if context_id and user is not None:
        admin_context_end(staff=user, context_id=context_id)


# --- API --------------------------------------------------------------------------------


class IsStaffActor(BasePermission):
    """The *actor* is authenticated staff; an active admin context does not block this view."""

    def has_permission(self, request: Any, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False  # DRF answers 401 NOT_AUTHENTICATED
        if not actor_context(request).actor.is_staff:
            raise LightNoteError("ADMIN_ONLY", status=403)
        return True


class AdminContextStartSerializer(StrictSerializer):
    user_id = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="The user whose data to view"
    )
    mode = serializers.ChoiceField(
        choices=AdminContext.Mode.choices, default=AdminContext.Mode.READONLY
    )
    reason = serializers.CharField(
        max_length=AdminContext.REASON_MAX,
        required=False,
        allow_blank=True,
        default="",
        help_text="Why the staff member looks (kept on the context and in the audit event)",
    )


class AdminContextSubjectSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class AdminContextSerializer(serializers.Serializer):
    """An admin context; ``expires_at`` in the staff member's zone."""

    context_id = serializers.UUIDField(source="id")
    subject = AdminContextSubjectSerializer()
    mode = serializers.ChoiceField(choices=AdminContext.Mode.choices)
    expires_at = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.DATETIME)
    def get_expires_at(self, context: AdminContext) -> str:
        return context.expires_at.astimezone(self.context["zone"]).isoformat()


def _is_browser_session(request: Request) -> bool:
    return isinstance(request.successful_authenticator, SessionAuthentication)


class AdminImpersonationView(APIView):
    """Start (POST) or end (DELETE) the staff member's read-only view of a user's data."""

    permission_classes = [IsStaffActor]

    @extend_schema(
        request=AdminContextStartSerializer,
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={
            201: AdminContextSerializer,
            **error_responses(
                400,
                401,
                403,
                404,
                415,
                s403=(
                    "ADMIN_ONLY (not staff); ADMIN_SUBJECT_FORBIDDEN (a superuser, "
                    "viewed by a staff member who is not one); " + AUTHENTICATED_403
                ),
                s404="USER_NOT_FOUND",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = AdminContextStartSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        current = actor_context(request)
        data = serializer.validated_data
        if _is_browser_session(request):
            # One context per browser session: the new one replaces (and ends) the old one.
            context = browser_context_start(
                request, staff=current.actor, subject_id=data["user_id"], reason=data["reason"]
            )
        else:
            context = admin_context_start(
                staff=current.actor,
                subject_id=data["user_id"],
                mode=data["mode"],
                reason=data["reason"],
            )
        body = AdminContextSerializer(
            context, context={"zone": zoneinfo.ZoneInfo(current.actor.time_zone)}
        ).data
        return Response(body, status=201)

    @extend_schema(
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={
            204: OpenApiResponse(
                description=(
                    "The context named by X-Admin-Context (or held by the browser session) "
                    "has ended; also when none was active"
                )
            ),
            **error_responses(401, 403, s403="ADMIN_ONLY (not staff); " + AUTHENTICATED_403),
        },
    )
    def delete(self, request: Request) -> Response:
        refuse_body_fields(request)
        current = actor_context(request)
        if current.admin_context is not None:
            admin_context_end(staff=current.actor, context_id=current.admin_context.id)
        if _is_browser_session(request):
            request.session.pop(ADMIN_CONTEXT_SESSION_KEY, None)
        return Response(status=204)
