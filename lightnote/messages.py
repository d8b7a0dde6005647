"""Texts of the project-level layer (accounts, admin impersonation)."""

from __future__ import annotations

from lightnote.i18n import define_messages

define_messages(
    {
        "ADMIN_ONLY": ("仅限管理员。", "Staff only."),
        "ADMIN_READONLY": (
            "当前处于管理员只读代管模式，不能修改数据。",
            "An admin read-only context is active: nothing may be changed.",
        ),
        "ADMIN_CONTEXT_INVALID": (
            "管理员代管上下文无效或已过期。",
            "The admin context is unknown, ended or expired.",
        ),
        "USER_NOT_FOUND": ("用户不存在。", "No such user."),
    }
)
