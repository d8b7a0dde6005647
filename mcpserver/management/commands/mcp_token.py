"""Create, list and revoke a user's MCP tokens from the command line."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lightnote.errors import LightNoteError
from mcpserver.models import McpToken
from mcpserver.tokens import mcp_token_create, mcp_token_revoke


class Command(BaseCommand):
    help = (
        "Manage MCP tokens (never write or confirm). "
        "create --user NAME --name LABEL [--scope read|propose] prints the key once "
        "(propose, the default: read and propose; read: the read tools only); list --user NAME; "
        "revoke --user NAME --id ID."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["create", "list", "revoke"])
        parser.add_argument("--user", required=True, help="the username that owns the token")
        parser.add_argument("--name", default="", help="a label for a new token")
        parser.add_argument("--id", type=int, dest="token_id", help="the token to revoke")
        parser.add_argument(
            "--scope",
            choices=McpToken.Scope.values,
            default=McpToken.Scope.PROPOSE,
            help="read: the read tools only; propose (default): read and propose changes",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"no user named {options['user']!r}")
        try:
            if options["action"] == "create":
                token, raw_key = mcp_token_create(
                    owner=user, name=options["name"], scope=options["scope"]
                )
                self.stderr.write(
                    f"created MCP token {token.pk} ({token.name}, {token.scope}); the key:"
                )
                self.stdout.write(raw_key)
            elif options["action"] == "revoke":
                if options["token_id"] is None:
                    raise CommandError("revoke needs --id")
                token = mcp_token_revoke(owner=user, token_id=options["token_id"])
                self.stdout.write(f"revoked MCP token {token.pk} ({token.name})")
            else:
                for token in McpToken.objects.filter(owner=user):
                    state = "revoked" if token.revoked_at else "active"
                    used = token.last_used_at.isoformat() if token.last_used_at else "never"
                    self.stdout.write(
                        f"{token.pk}\t{token.prefix}…\t{state}\t{token.scope}\t"
                        f"last used {used}\t{token.name}"
                    )
        except LightNoteError as error:
            raise CommandError(error.message("en")) from None
