"""Texts of the project-level layer (accounts, admin impersonation)."""

from __future__ import annotations

from lightnote.texts.i18n import define_messages

define_messages(
    {
        "ADMIN_ONLY": ("仅限管理员。", "Staff only."),
        "ADMIN_SUBJECT_FORBIDDEN": (
            "只有超级管理员可以查看超级管理员的数据。",
            "Only a superuser may view a superuser's data.",
        ),
        "ADMIN_READONLY": (
            "当前处于管理员只读代管模式，不能修改数据。",
            "An admin read-only context is active: nothing may be changed.",
        ),
        "ADMIN_CONTEXT_INVALID": (
            "管理员代管上下文无效或已过期。",
            "The admin context is unknown, ended or expired.",
        ),
        "USER_NOT_FOUND": ("用户不存在。", "No such user."),
        "ADMIN_CONTEXT_BANNER": (
            "管理员只读模式：{actor} 正在查看 {subject} 的数据，任何写操作都会被拒绝（至 {expires}）。",
            "Admin read-only mode: {actor} is viewing {subject}'s data; every write is refused "
            "(until {expires}).",
        ),
        "ADMIN_CONTEXT_END": ("结束查看并返回管理后台", "End viewing and return to the admin"),
        "ADMIN_CONTEXT_REFUSED_TITLE": ("只读：未执行", "Read-only: not done"),
        "ADMIN_CONTEXT_REFUSED_BACK": ("返回上一页", "Go back"),
    }
)
